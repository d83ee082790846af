//! Draws a reading onto a copy of the image: the grid's outline, every cell's outline (green =
//! read, red = unreadable) and its value and confidence (percent) in a small bitmap font, so a
//! user sees what the bot saw. When no board was found, [`annotate_search`] shows where the
//! reader looked instead: the whole image is searched (red frame), and every pixel of a board
//! colour of the profiles tried is painted magenta (no magenta: the game's board colour is in no
//! profile, so calibrate one).
use super::{Reading, Rgb};
use image::{Rgba, RgbaImage};

/// 3x5 bitmap font: digits, `?`, `%`, `.` (rows top to bottom, 3 bits each, MSB = left).
fn glyph(ch: char) -> [u8; 5] {
    match ch {
        '0' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [7, 1, 7, 4, 7],
        '3' => [7, 1, 7, 1, 7],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 7, 1, 7],
        '6' => [7, 4, 7, 5, 7],
        '7' => [7, 1, 1, 1, 1],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 7],
        '?' => [7, 1, 3, 0, 2],
        '%' => [5, 1, 2, 4, 5],
        _ => [0, 0, 0, 0, 0],
    }
}

/// Draws `text` with its top-left at (x, y), each font pixel `scale` pixels wide, on a
/// background box.
pub fn draw_text(
    img: &mut RgbaImage,
    x: i64,
    y: i64,
    text: &str,
    scale: i64,
    fg: Rgba<u8>,
    bg: Rgba<u8>,
) {
    let w = text.chars().count() as i64 * 4 * scale + scale;
    fill(img, x - scale, y - scale, w + scale, 7 * scale, bg);
    for (i, ch) in text.chars().enumerate() {
        let g = glyph(ch);
        for (r, bits) in g.iter().enumerate() {
            for c in 0..3 {
                if bits & (4 >> c) != 0 {
                    let px = x + (i as i64 * 4 + c) * scale;
                    let py = y + r as i64 * scale;
                    fill(img, px, py, scale, scale, fg);
                }
            }
        }
    }
}

fn fill(img: &mut RgbaImage, x: i64, y: i64, w: i64, h: i64, c: Rgba<u8>) {
    for yy in y.max(0)..(y + h).min(i64::from(img.height())) {
        for xx in x.max(0)..(x + w).min(i64::from(img.width())) {
            img.put_pixel(xx as u32, yy as u32, c);
        }
    }
}

/// Outline of a rectangle, `t` pixels thick.
pub fn draw_rect(img: &mut RgbaImage, x0: i64, y0: i64, x1: i64, y1: i64, t: i64, c: Rgba<u8>) {
    fill(img, x0, y0, x1 - x0, t, c);
    fill(img, x0, y1 - t, x1 - x0, t, c);
    fill(img, x0, y0, t, y1 - y0, c);
    fill(img, x1 - t, y0, t, y1 - y0, c);
}

/// A copy of `img` with `reading` drawn on it.
pub fn annotate(img: &RgbaImage, reading: &Reading) -> RgbaImage {
    let mut out = img.clone();
    let g = reading.grid;
    let blue = Rgba([0, 90, 255, 255]);
    let green = Rgba([0, 170, 0, 255]);
    let red = Rgba([230, 0, 0, 255]);
    let white = Rgba([255, 255, 255, 255]);
    let black = Rgba([0, 0, 0, 255]);
    let t = (g.cell_width / 60.0).ceil().max(1.0) as i64;
    draw_rect(
        &mut out,
        i64::from(g.x) - 2 * t,
        i64::from(g.y) - 2 * t,
        i64::from(g.x + g.width) + 2 * t,
        i64::from(g.y + g.height) + 2 * t,
        t,
        blue,
    );
    let scale = (g.cell_width / 40.0).floor().max(1.0) as i64;
    for r in 0..g.rows {
        for c in 0..g.cols {
            let cell = g.cell(r, c);
            let read = reading.cells[r * g.cols + c];
            let colour = if read.value.is_some() { green } else { red };
            draw_rect(
                &mut out,
                cell.x0 as i64,
                cell.y0 as i64,
                cell.x1 as i64,
                cell.y1 as i64,
                t,
                colour,
            );
            let v = read
                .value
                .map_or_else(|| "?".to_string(), |v| v.to_string());
            let x = cell.x0 as i64 + 2 * t + scale;
            draw_text(
                &mut out,
                x,
                cell.y0 as i64 + 2 * t + scale,
                &v,
                scale,
                white,
                colour,
            );
            let pct = format!("{}%", (read.confidence * 100.0).round() as u32);
            draw_text(
                &mut out,
                x,
                cell.y1 as i64 - 2 * t - 6 * scale,
                &pct,
                scale,
                white,
                black,
            );
        }
    }
    out
}

/// Colour that marks pixels of a board colour in [`annotate_search`].
pub const SEARCH_MARK: Rgba<u8> = Rgba([255, 0, 255, 255]);

/// A copy of `img` showing where the reader looked for a board and found none: a red frame
/// around the whole image (the area searched) and every pixel within tolerance of one of
/// `board_colours` (colour, tolerance in 8-bit levels) painted [`SEARCH_MARK`].
pub fn annotate_search(img: &RgbaImage, board_colours: &[(Rgb, u8)]) -> RgbaImage {
    let mut out = img.clone();
    for p in out.pixels_mut() {
        let c = Rgb::from_rgba(p.0);
        if board_colours.iter().any(|(b, tol)| c.dist(*b) <= *tol) {
            *p = SEARCH_MARK;
        }
    }
    let t = i64::from((img.width().min(img.height()) / 200).max(2));
    draw_rect(
        &mut out,
        0,
        0,
        i64::from(img.width()),
        i64::from(img.height()),
        t,
        Rgba([230, 0, 0, 255]),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_marks_board_coloured_pixels_and_frames_the_image() {
        // 20x20: left half board colour #bbada0, right half page colour #faf8ef
        let img = RgbaImage::from_fn(20, 20, |x, _| {
            if x < 10 {
                Rgba([0xbb, 0xad, 0xa0, 255])
            } else {
                Rgba([0xfa, 0xf8, 0xef, 255])
            }
        });
        let out = annotate_search(&img, &[(Rgb::from_rgba([0xbb, 0xad, 0xa0, 255]), 8)]);
        // inside the 2-pixel frame: left half marked, right half untouched
        assert_eq!(*out.get_pixel(5, 10), SEARCH_MARK);
        assert_eq!(*out.get_pixel(15, 10), Rgba([0xfa, 0xf8, 0xef, 255]));
        // the frame
        assert_eq!(*out.get_pixel(0, 10), Rgba([230, 0, 0, 255]));
        assert_eq!(*out.get_pixel(19, 10), Rgba([230, 0, 0, 255]));
    }
}
