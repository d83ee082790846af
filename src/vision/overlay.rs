//! Overlays a profile never saw: a "Game over" or "You win" layer that a profile learned from
//! plain screenshots (or by playing) does not list, measured on the frame itself.
//!
//! A semi-transparent layer of colour C and opacity a turns every colour x under it into
//! `a·C + (1 − a)·x` ([`super::profile::Overlay`]): one affine map, the same slope `1 − a` on
//! every channel. The board colour the profile knows (B) and the one the frame shows (B', one of
//! its most common colours in which a grid is found) fix C for each a, so one unknown is left:
//! the opacity. It is taken as the
//! one under which the most cells' backgrounds become colours of the profile (the empty cell or
//! a tile), and the layer is kept only when most cells then match.
use super::cells::ring_pixels;
use super::colour::{dominant, Rgb};
use super::grid::GridRect;
use super::profile::{Overlay, OverlayStatus, Profile};
use image::RgbaImage;

/// The opacities tried: 0.10 to 0.90 in steps of 0.01 (a layer fainter than 0.10 leaves the
/// colours within a profile's tolerance; one above 0.90 hides the board).
const ALPHAS: std::ops::RangeInclusive<u32> = 10..=90;

/// Share of the cells whose background must match a profile colour under the layer.
const MIN_MATCHED_SHARE: f32 = 0.75;

/// Bits a channel keeps when a cell's ring colour is taken ([`dominant`]).
const RING_BITS: u32 = 5;

/// The layer over the board of `grid` in `img` that makes `profile`'s colours the ones seen,
/// given the board colour seen (`board_seen`, 8-bit sRGB, the colour `grid` is drawn in). Its
/// status is [`OverlayStatus::GameOver`] until the cells are read (see [`status_under_layer`]).
/// `None` when the profile has no board or empty-cell colour, or no opacity makes at least
/// [`MIN_MATCHED_SHARE`] of the cells match (within the profile's cell tolerance).
pub(crate) fn infer(
    img: &RgbaImage,
    grid: &GridRect,
    profile: &Profile,
    board_seen: Rgb,
) -> Option<Overlay> {
    let board = profile.board.as_ref()?.colour;
    profile.cells.as_ref()?;
    if !shifted(profile, board_seen) {
        return None;
    }
    let seen: Vec<Rgb> = (0..grid.rows)
        .flat_map(|r| (0..grid.cols).map(move |c| (r, c)))
        .filter_map(|(r, c)| dominant(&ring_pixels(img, &grid.cell(r, c)), RING_BITS))
        .map(|(colour, _)| colour)
        .collect();
    let known: Vec<Rgb> = profile.palette(None).iter().map(|e| e.background).collect();
    let tol = profile.cell_tolerance();
    let cells = grid.rows * grid.cols;
    let (matched, overlay) = ALPHAS
        .filter_map(|percent| layer(board, board_seen, percent as f32 / 100.0))
        .map(|o| (matched(&seen, &known, &o, tol), o))
        .max_by_key(|(n, _)| *n)?;
    (matched as f32 >= MIN_MATCHED_SHARE * cells as f32).then_some(overlay)
}

/// Slack (8-bit levels) added to the profile's cell tolerance when a frame's common colours
/// (means of 4-bit bins, [`super::grid::candidate_colours`]) are compared.
const COMMON_COLOUR_SLACK: u8 = 6;

/// Whether `board_seen`, one of a frame's common colours `common`, can be `profile`'s board
/// under some layer: for one opacity, at least two other common colours are the profile's empty
/// or tile colours under the same layer (within the cell tolerance and
/// [`COMMON_COLOUR_SLACK`]). A cheap test before a grid is searched in that colour.
pub(crate) fn plausible_board(profile: &Profile, board_seen: Rgb, common: &[Rgb]) -> bool {
    let Some(board) = profile.board.as_ref().map(|b| b.colour) else {
        return false;
    };
    if !shifted(profile, board_seen) {
        return false;
    }
    let others: Vec<Rgb> = common
        .iter()
        .copied()
        .filter(|&c| c != board_seen)
        .collect();
    let known: Vec<Rgb> = profile.palette(None).iter().map(|e| e.background).collect();
    let tol = profile.cell_tolerance().saturating_add(COMMON_COLOUR_SLACK);
    ALPHAS
        .filter_map(|percent| layer(board, board_seen, percent as f32 / 100.0))
        .any(|o| matched(&others, &known, &o, tol) >= 2)
}

/// Whether `board_seen` is further from the profile's board colour than twice its tolerance: a
/// colour closer to it is the plain board (its own search looks for it), and a "layer" that
/// leaves it there would read any frame with the profile's colours as covered.
fn shifted(profile: &Profile, board_seen: Rgb) -> bool {
    profile
        .board
        .as_ref()
        .is_some_and(|b| board_seen.dist(b.colour) > b.tolerance.saturating_mul(2))
}

/// The layer of opacity `alpha` that turns `board` into `board_seen`; `None` when its colour
/// would leave 0..=255 (by more than rounding).
fn layer(board: Rgb, board_seen: Rgb, alpha: f32) -> Option<Overlay> {
    let mut colour = [0u8; 3];
    for (i, c) in colour.iter_mut().enumerate() {
        let v = (f32::from(board_seen.0[i]) - (1.0 - alpha) * f32::from(board.0[i])) / alpha;
        if !(-2.0..=257.0).contains(&v) {
            return None;
        }
        *c = v.round().clamp(0.0, 255.0) as u8;
    }
    Some(Overlay {
        status: OverlayStatus::GameOver,
        colour: Rgb(colour),
        alpha,
    })
}

/// How many of the cell colours `seen` are one of the colours `known` under the layer `o`.
fn matched(seen: &[Rgb], known: &[Rgb], o: &Overlay, tol: u8) -> usize {
    let shaded: Vec<Rgb> = known.iter().map(|k| k.blend(o.colour, o.alpha)).collect();
    seen.iter()
        .filter(|s| shaded.iter().any(|k| k.dist(**s) <= tol))
        .count()
}

/// What a layer the profile never saw means, from the values read under it: game over when no
/// move is left, else a win (the games here draw a layer only to end a game or to mark its win
/// tile).
pub(crate) fn status_under_layer(values_have_a_move: bool) -> OverlayStatus {
    if values_have_a_move {
        OverlayStatus::Won
    } else {
        OverlayStatus::GameOver
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The web game's "Game over!" layer, rgba(238, 228, 218, 0.5), over the restyled board
    /// #2f4858 gives #8f9699 (each channel (x + c) / 2, rounded): the layer found for a = 0.5
    /// is the web game's own colour.
    #[test]
    fn the_layer_of_a_known_opacity_has_the_games_colour() {
        let board = Rgb([0x2f, 0x48, 0x58]);
        let seen = board.blend(Rgb([238, 228, 218]), 0.5);
        assert_eq!(seen, Rgb([0x8f, 0x96, 0x99]));
        let o = layer(board, seen, 0.5).unwrap();
        assert!(o.colour.dist(Rgb([238, 228, 218])) <= 1, "{:?}", o.colour);
    }

    /// The restyled web game's board, empty cell and 2 (tests/data/web-restyled/restyle.css).
    fn restyled() -> Profile {
        let toml = "name = \"restyled\"\n[board]\ncolour = \"#2f4858\"\n[cells]\n\
                    empty = \"#46637a\"\n[[tiles]]\nvalue = 2\nbackground = \"#d7eef5\"\n\
                    text = \"#1d3340\"\n";
        Profile::parse(toml, "test").unwrap()
    }

    /// Under the web game's "Game over!" layer the board, the empty cell and the 2 are
    /// #8f9699, #9aa4aa and #e3e9e8 ((x + c) / 2 per channel, rounded): the board colour is
    /// plausible with them, and not beside two colours the profile cannot make.
    #[test]
    fn a_board_colour_is_plausible_only_beside_the_profiles_colours_under_one_layer() {
        let grey = Rgb([238, 228, 218]);
        let p = restyled();
        let board = Rgb([0x2f, 0x48, 0x58]).blend(grey, 0.5);
        let empty = Rgb([0x46, 0x63, 0x7a]).blend(grey, 0.5);
        let two = Rgb([0xd7, 0xee, 0xf5]).blend(grey, 0.5);
        assert_eq!(
            (board, empty, two),
            (
                Rgb([0x8f, 0x96, 0x99]),
                Rgb([0x9a, 0xa4, 0xaa]),
                Rgb([0xe3, 0xe9, 0xe8])
            )
        );
        assert!(plausible_board(&p, board, &[board, empty, two]));
        let plain = Rgb([0x2f, 0x48, 0x58]);
        let near = Rgb([0x33, 0x4b, 0x5a]);
        assert!(
            !plausible_board(
                &p,
                near,
                &[near, Rgb([0x46, 0x63, 0x7a]), Rgb([0xd7, 0xee, 0xf5])]
            ),
            "a colour within twice the tolerance of {plain:?} is the plain board, not a layer"
        );
        let red = Rgb([255, 0, 0]);
        let green = Rgb([0, 255, 0]);
        assert!(!plausible_board(&p, board, &[board, red, green]));
    }

    /// A board seen darker than black under any layer cannot be: no opacity fits.
    #[test]
    fn a_layer_outside_the_colour_range_is_refused() {
        assert!(layer(Rgb([200, 200, 200]), Rgb([10, 10, 10]), 0.1).is_none());
    }
}
