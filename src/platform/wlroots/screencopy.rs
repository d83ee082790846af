//! [`Screencopy`]: frames of one output through `zwlr_screencopy_manager_v1.capture_output`, into
//! a `wl_shm` buffer kept between frames.
//!
//! wlroots 0.15 (sway 1.7) has no per-window capture (`ext-image-copy-capture` came later), and
//! the foreign-toplevel protocol gives no window rectangle, so a frame is the whole output the
//! game is on: the vision stage finds the board anywhere in a frame. The buffer is an unlinked
//! file in `$XDG_RUNTIME_DIR` (else the temporary folder), read back with `pread`; the formats
//! taken are the 32-bit ones wlroots offers for shm (`XRGB8888`, `ARGB8888`, and their `XBGR`/
//! `ABGR` twins), little-endian, 4 bytes a pixel.
use super::client::{Client, WlError, ANSWER_WAIT};
use image::RgbaImage;
use std::fs::File;
use std::os::fd::AsFd;
use std::os::unix::fs::FileExt;
use wayland_client::protocol::{wl_buffer, wl_output, wl_shm, wl_shm_pool};
use wayland_client::WEnum;

/// One shm buffer and the file behind it.
#[derive(Debug)]
struct ShmBuffer {
    file: File,
    pool: wl_shm_pool::WlShmPool,
    buffer: wl_buffer::WlBuffer,
    /// format, width, height, stride as the compositor asked for them
    shape: (WEnum<wl_shm::Format>, u32, u32, u32),
}

impl Drop for ShmBuffer {
    fn drop(&mut self) {
        self.buffer.destroy();
        self.pool.destroy();
    }
}

/// Output captures with one reused buffer.
#[derive(Debug, Default)]
pub struct Screencopy {
    buf: Option<ShmBuffer>,
    bytes: Vec<u8>,
}

/// A new unlinked file of `len` bytes for shared memory.
fn shm_file(len: u64) -> std::io::Result<File> {
    static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let dir = std::env::var_os("XDG_RUNTIME_DIR")
        .map(std::path::PathBuf::from)
        .filter(|d| d.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("bot2048-shm-{}-{n}", std::process::id()));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)?;
    std::fs::remove_file(&path)?;
    file.set_len(len)?;
    Ok(file)
}

/// A new unlinked file holding `bytes` (the virtual keyboard's keymap).
pub(super) fn file_with(bytes: &[u8]) -> std::io::Result<File> {
    let f = shm_file(bytes.len() as u64)?;
    f.write_all_at(bytes, 0)?;
    Ok(f)
}

/// Where red, green and blue sit in a 4-byte pixel of `format`; `None` for formats not taken.
fn channels(format: WEnum<wl_shm::Format>) -> Option<[usize; 3]> {
    match format {
        WEnum::Value(wl_shm::Format::Xrgb8888 | wl_shm::Format::Argb8888) => Some([2, 1, 0]),
        WEnum::Value(wl_shm::Format::Xbgr8888 | wl_shm::Format::Abgr8888) => Some([0, 1, 2]),
        _ => None,
    }
}

/// Converts `bytes` (rows of `stride` bytes, `width` x `height` pixels of `format`, bottom row
/// first when `y_invert`) to an RGBA image (alpha 255).
///
/// # Errors
/// [`WlError::Protocol`] for a format other than the four taken, or too few bytes.
pub fn to_rgba(
    bytes: &[u8],
    format: WEnum<wl_shm::Format>,
    width: u32,
    height: u32,
    stride: u32,
    y_invert: bool,
) -> Result<RgbaImage, WlError> {
    let [r, g, b] = channels(format)
        .ok_or_else(|| WlError::Protocol(format!("unsupported shm format {format:?}")))?;
    let (w, h, s) = (width as usize, height as usize, stride as usize);
    if s < w * 4 || bytes.len() < s * h {
        return Err(WlError::Protocol(format!(
            "a {width}x{height} frame with stride {stride} in {} bytes",
            bytes.len()
        )));
    }
    let mut out = vec![0u8; w * h * 4];
    for (y, row) in out.chunks_exact_mut(w * 4).enumerate() {
        let src = if y_invert { h - 1 - y } else { y };
        for (o, px) in row
            .chunks_exact_mut(4)
            .zip(bytes[src * s..src * s + w * 4].chunks_exact(4))
        {
            o[0] = px[r];
            o[1] = px[g];
            o[2] = px[b];
            o[3] = 255;
        }
    }
    RgbaImage::from_raw(width, height, out)
        .ok_or_else(|| WlError::Protocol("frame buffer size".into()))
}

impl Screencopy {
    /// Captures `output` once (without the cursor) and returns its pixels; with `region` (output
    /// pixels: x, y, width, height), only that part of it (`capture_output_region`; the image is
    /// the region at the output's scale).
    ///
    /// # Errors
    /// [`WlError::MissingGlobal`] without `zwlr_screencopy_manager_v1`; [`WlError::Protocol`]
    /// when the compositor offers no shm buffer, the copy fails, or the buffer file cannot be
    /// made; [`WlError::Timeout`].
    pub fn capture(
        &mut self,
        c: &mut Client,
        output: &wl_output::WlOutput,
        region: Option<crate::capture::Rect>,
    ) -> Result<RgbaImage, WlError> {
        let manager = c
            .screencopy
            .clone()
            .ok_or(WlError::MissingGlobal("zwlr_screencopy_manager_v1"))?;
        let f = match region {
            Some(r) => manager.capture_output_region(
                0,
                output,
                r.x,
                r.y,
                r.width as i32,
                r.height as i32,
                &c.qh,
                (),
            ),
            None => manager.capture_output(0, output, &c.qh, ()),
        };
        c.track_copy(&f);
        let result = self.copy(c, &f);
        c.forget_copy(f);
        result
    }

    fn copy(
        &mut self,
        c: &mut Client,
        f: &wayland_protocols_wlr::screencopy::v1::client::zwlr_screencopy_frame_v1::ZwlrScreencopyFrameV1,
    ) -> Result<RgbaImage, WlError> {
        c.wait_until(ANSWER_WAIT, |s| {
            let st = Client::copy_of(s, f);
            st.described || st.failed
        })?;
        let st = c.copy_state(f);
        if st.failed {
            return Err(WlError::Protocol(
                "the compositor refused the capture".into(),
            ));
        }
        let shape = st
            .shm
            .ok_or_else(|| WlError::Protocol("the compositor offered no shm buffer".into()))?;
        let (format, width, height, stride) = shape;
        if self.buf.as_ref().is_none_or(|b| b.shape != shape) {
            self.buf = None;
            let len = stride as u64 * height as u64;
            let file = shm_file(len).map_err(|e| WlError::Protocol(format!("shm file: {e}")))?;
            let pool = c.shm.create_pool(file.as_fd(), len as i32, &c.qh, ());
            let fmt = match format {
                WEnum::Value(v) => v,
                WEnum::Unknown(v) => {
                    return Err(WlError::Protocol(format!("unknown shm format {v:#x}")))
                }
            };
            let buffer = pool.create_buffer(
                0,
                width as i32,
                height as i32,
                stride as i32,
                fmt,
                &c.qh,
                (),
            );
            self.buf = Some(ShmBuffer {
                file,
                pool,
                buffer,
                shape,
            });
        }
        let Some(buf) = self.buf.as_ref() else {
            return Err(WlError::Protocol("no shm buffer".into()));
        };
        f.copy(&buf.buffer);
        c.wait_until(ANSWER_WAIT, |s| {
            let st = Client::copy_of(s, f);
            st.ready || st.failed
        })?;
        let st = c.copy_state(f);
        if st.failed {
            return Err(WlError::Protocol("the copy failed".into()));
        }
        self.bytes.resize(stride as usize * height as usize, 0);
        buf.file
            .read_exact_at(&mut self.bytes, 0)
            .map_err(|e| WlError::Protocol(format!("reading the shm buffer: {e}")))?;
        to_rgba(&self.bytes, format, width, height, stride, st.y_invert)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xrgb_rows_become_rgba_and_y_invert_flips_them() {
        // 2x2, stride 12 (4 bytes of padding a row); memory order B, G, R, X
        let mut bytes = vec![0u8; 24];
        bytes[0..8].copy_from_slice(&[1, 2, 3, 0, 4, 5, 6, 0]);
        bytes[12..20].copy_from_slice(&[7, 8, 9, 0, 10, 11, 12, 0]);
        let f = WEnum::Value(wl_shm::Format::Xrgb8888);
        let img = to_rgba(&bytes, f, 2, 2, 12, false).unwrap();
        assert_eq!(img.get_pixel(0, 0).0, [3, 2, 1, 255]);
        assert_eq!(img.get_pixel(1, 1).0, [12, 11, 10, 255]);
        let flipped = to_rgba(&bytes, f, 2, 2, 12, true).unwrap();
        assert_eq!(flipped.get_pixel(0, 0).0, [9, 8, 7, 255]);
        let abgr = to_rgba(
            &bytes,
            WEnum::Value(wl_shm::Format::Abgr8888),
            2,
            2,
            12,
            false,
        );
        assert_eq!(abgr.unwrap().get_pixel(0, 0).0, [1, 2, 3, 255]);
    }

    #[test]
    fn other_formats_and_short_buffers_are_errors_not_panics() {
        let f = WEnum::Value(wl_shm::Format::Rgb565);
        assert!(matches!(
            to_rgba(&[0; 8], f, 2, 2, 4, false),
            Err(WlError::Protocol(_))
        ));
        let x = WEnum::Value(wl_shm::Format::Xrgb8888);
        assert!(matches!(
            to_rgba(&[0; 8], x, 2, 2, 8, false),
            Err(WlError::Protocol(_))
        ));
    }
}
