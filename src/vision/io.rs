//! Loading screenshots safely: size limits, format sniffing and clear errors (never a panic).
use image::{ImageReader, Limits, RgbaImage};
use std::io::{BufReader, Seek};
use std::path::Path;

/// Largest file accepted, in bytes.
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// Largest width or height accepted, in pixels.
pub const MAX_SIDE: u32 = 16_384;
/// Most memory the decoder may allocate, in bytes.
pub const MAX_ALLOC: u64 = 1 << 30;

/// Why an image could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ImageLoadError {
    /// No such file.
    #[error("{path}: no such file")]
    NotFound {
        /// The path.
        path: String,
    },
    /// Other I/O error.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The path.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// Zero bytes.
    #[error("{path}: file is empty (0 bytes)")]
    Empty {
        /// The path.
        path: String,
    },
    /// Larger than the limits.
    #[error("{path}: too large ({what}); limits: {MAX_FILE_BYTES} bytes, {MAX_SIDE} px a side")]
    TooLarge {
        /// The path.
        path: String,
        /// What exceeded the limit.
        what: String,
    },
    /// Not PNG or JPEG.
    #[error("{path}: not a PNG or JPEG image")]
    NotAnImage {
        /// The path.
        path: String,
    },
    /// Corrupt or truncated data.
    #[error("{path}: corrupt or truncated image: {message}")]
    Corrupt {
        /// The path.
        path: String,
        /// The decoder's message.
        message: String,
    },
}

/// Loads a PNG or JPEG file as RGBA.
///
/// # Errors
/// [`ImageLoadError`] for a missing, empty, huge, non-image, corrupt or truncated file.
pub fn load_image(path: &Path) -> Result<RgbaImage, ImageLoadError> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ImageLoadError::NotFound {
            path: shown.clone(),
        },
        _ => ImageLoadError::Io {
            path: shown.clone(),
            source: e,
        },
    })?;
    let meta = file.metadata().map_err(|e| ImageLoadError::Io {
        path: shown.clone(),
        source: e,
    })?;
    if meta.is_dir() {
        return Err(ImageLoadError::NotAnImage { path: shown });
    }
    if meta.len() == 0 {
        return Err(ImageLoadError::Empty { path: shown });
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(ImageLoadError::TooLarge {
            path: shown,
            what: format!("{} bytes", meta.len()),
        });
    }
    decode(BufReader::new(file), &shown)
}

/// Decodes PNG or JPEG bytes as RGBA (`origin` names them in errors).
///
/// # Errors
/// As [`load_image`].
pub fn decode_bytes(bytes: &[u8], origin: &str) -> Result<RgbaImage, ImageLoadError> {
    if bytes.is_empty() {
        return Err(ImageLoadError::Empty {
            path: origin.to_string(),
        });
    }
    decode(std::io::Cursor::new(bytes), origin)
}

fn decode<R: std::io::BufRead + Seek>(reader: R, shown: &str) -> Result<RgbaImage, ImageLoadError> {
    let mut r = ImageReader::new(reader)
        .with_guessed_format()
        .map_err(|e| ImageLoadError::Io {
            path: shown.to_string(),
            source: e,
        })?;
    if r.format().is_none() {
        return Err(ImageLoadError::NotAnImage {
            path: shown.to_string(),
        });
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    r.limits(limits);
    match r.decode() {
        Ok(img) => Ok(img.to_rgba8()),
        Err(image::ImageError::Limits(e)) => Err(ImageLoadError::TooLarge {
            path: shown.to_string(),
            what: e.to_string(),
        }),
        Err(image::ImageError::Unsupported(_)) => Err(ImageLoadError::NotAnImage {
            path: shown.to_string(),
        }),
        Err(e) => Err(ImageLoadError::Corrupt {
            path: shown.to_string(),
            message: e.to_string(),
        }),
    }
}
