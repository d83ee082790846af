//! Files the subcommands write (annotated images, saved frames, profiles), written so that
//! nothing the user had is lost: every output is checked before any work ([`check_outputs`]: not
//! an input, not two outputs in one file, not an existing file unless `--force`), images are
//! written in the format their extension names ([`ImageKind`]), and every file goes through a
//! temporary file in the same directory ([`write_atomic`]), so a crash leaves the old file or the
//! new one, whole.
use super::exit::UsageError;
use crate::fsio::{self, Existing, WriteError};
use anyhow::Context;
use std::path::{Path, PathBuf};

/// The image formats an output may be written in, chosen by the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    /// `.png`: lossless; what `read` and `calibrate` read back exactly.
    Png,
    /// `.jpg` / `.jpeg`: lossy, quality [`JPEG_QUALITY`] (no alpha channel).
    Jpeg,
}

/// JPEG quality (1..=100) of `.jpg` outputs.
pub const JPEG_QUALITY: u8 = 90;

impl ImageKind {
    /// The format `path`'s extension names (case-insensitive).
    ///
    /// # Errors
    /// [`UsageError`] for any other extension, or none.
    pub fn of(path: &Path) -> Result<ImageKind, UsageError> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("png") => Ok(ImageKind::Png),
            Some("jpg" | "jpeg") => Ok(ImageKind::Jpeg),
            _ => Err(UsageError(format!(
                "{}: name a .png or .jpg file (the extension sets the format)",
                path.display()
            ))),
        }
    }

    /// Encodes `img` in this format.
    ///
    /// # Errors
    /// The encoder's error (not expected for an in-memory image).
    pub fn encode(self, img: &image::RgbaImage) -> Result<Vec<u8>, image::ImageError> {
        let mut bytes = Vec::new();
        match self {
            ImageKind::Png => img.write_to(
                &mut std::io::Cursor::new(&mut bytes),
                image::ImageFormat::Png,
            )?,
            ImageKind::Jpeg => {
                let rgb = image::DynamicImage::ImageRgba8(img.clone()).to_rgb8();
                let enc =
                    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, JPEG_QUALITY);
                rgb.write_with_encoder(enc)?;
            }
        }
        Ok(bytes)
    }
}

/// Whether `a` and `b` name the same file: the same canonical path, or (both existing) the same
/// device and inode (a hard link). `b` may not exist yet; then its directory is canonicalised.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        return ma.dev() == mb.dev() && ma.ino() == mb.ino();
    }
    match (canonical(a), canonical(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// `p` made absolute with symlinks resolved; for a missing file, its directory resolved plus its
/// name.
fn canonical(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = p.canonicalize() {
        return Some(c);
    }
    let name = p.file_name()?;
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.canonicalize().ok()?,
        _ => std::env::current_dir().ok()?,
    };
    Some(dir.join(name))
}

/// Checks output paths before any work is done: none may be one of `inputs` (even with
/// `force`), two outputs may not be one file, and none may exist unless `force`.
///
/// # Errors
/// [`UsageError`] naming the path and what to do.
pub fn check_outputs(
    outputs: &[PathBuf],
    inputs: &[PathBuf],
    force: bool,
) -> Result<(), UsageError> {
    for (i, out) in outputs.iter().enumerate() {
        if let Some(input) = inputs.iter().find(|inp| same_file(out, inp)) {
            return Err(UsageError(format!(
                "{} is also an input ({}): refusing to write over it",
                out.display(),
                input.display()
            )));
        }
        if let Some(other) = outputs[..i].iter().find(|o| same_file(out, o) || *o == out) {
            return Err(UsageError(format!(
                "{} and {} are the same output file: give inputs different names",
                other.display(),
                out.display()
            )));
        }
        if out.is_dir() {
            return Err(UsageError(format!("{} is a directory", out.display())));
        }
        if !force && std::fs::symlink_metadata(out).is_ok() {
            return Err(UsageError(format!(
                "{} already exists; use --force to overwrite it",
                out.display()
            )));
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically ([`crate::fsio::write_atomic`]): without `force` a file
/// at `path` (even one that appeared meanwhile) is never overwritten; with `force` it is replaced.
/// Missing directories are created.
///
/// # Errors
/// The directory cannot be created or written, or (without `force`) `path` exists.
pub fn write_atomic(path: &Path, bytes: &[u8], force: bool) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    match fsio::write_bytes(path, bytes, Existing::replace_if(force)) {
        Ok(()) => Ok(()),
        Err(WriteError::Exists(_)) => Err(UsageError(format!(
            "{} already exists; use --force to overwrite it",
            path.display()
        ))
        .into()),
        Err(WriteError::Io { source, .. }) => {
            Err(source).with_context(|| format!("cannot write {}", path.display()))
        }
    }
}

/// Writes `img` to `path` in the format its extension names (see [`ImageKind`]), as
/// [`write_atomic`] does.
///
/// # Errors
/// A bad extension ([`UsageError`]), or the write failed.
pub fn write_image(path: &Path, img: &image::RgbaImage, force: bool) -> anyhow::Result<()> {
    let kind = ImageKind::of(path)?;
    let bytes = kind
        .encode(img)
        .with_context(|| format!("cannot encode {}", path.display()))?;
    write_atomic(path, &bytes, force)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_picks_the_format_or_is_refused() {
        assert_eq!(ImageKind::of(Path::new("a.png")).unwrap(), ImageKind::Png);
        assert_eq!(ImageKind::of(Path::new("a.JPG")).unwrap(), ImageKind::Jpeg);
        assert_eq!(ImageKind::of(Path::new("a.jpeg")).unwrap(), ImageKind::Jpeg);
        assert!(ImageKind::of(Path::new("a.gif")).is_err());
        assert!(ImageKind::of(Path::new("a")).is_err());
    }

    #[test]
    fn jpeg_output_is_jpeg_and_png_is_png() {
        let dir = tempfile::tempdir().unwrap();
        let img = image::RgbaImage::from_pixel(8, 8, image::Rgba([200, 100, 50, 255]));
        let (j, p) = (dir.path().join("o.jpg"), dir.path().join("o.png"));
        write_image(&j, &img, false).unwrap();
        write_image(&p, &img, false).unwrap();
        // JPEG files start with FF D8 FF, PNG files with 89 'P' 'N' 'G'
        assert_eq!(&std::fs::read(&j).unwrap()[..3], &[0xFF, 0xD8, 0xFF]);
        assert_eq!(&std::fs::read(&p).unwrap()[..4], b"\x89PNG");
    }

    #[test]
    fn outputs_never_replace_inputs_or_existing_files() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("shot.png");
        std::fs::write(&input, b"keep").unwrap();
        let fresh = dir.path().join("new.png");
        assert!(check_outputs(
            std::slice::from_ref(&fresh),
            std::slice::from_ref(&input),
            false
        )
        .is_ok());
        // the input itself, even spelled differently and even with --force
        let spelled = dir.path().join(".").join("shot.png");
        assert!(check_outputs(&[spelled], std::slice::from_ref(&input), true).is_err());
        let link = dir.path().join("hard.png");
        std::fs::hard_link(&input, &link).unwrap();
        assert!(check_outputs(&[link], std::slice::from_ref(&input), true).is_err());
        // an existing file: only with --force
        let old = dir.path().join("old.png");
        std::fs::write(&old, b"old").unwrap();
        assert!(check_outputs(
            std::slice::from_ref(&old),
            std::slice::from_ref(&input),
            false
        )
        .is_err());
        assert!(check_outputs(
            std::slice::from_ref(&old),
            std::slice::from_ref(&input),
            true
        )
        .is_ok());
        // two outputs in one file
        assert!(check_outputs(&[fresh.clone(), fresh.clone()], &[], true).is_err());
        // write_atomic without force does not replace a file that appeared after the check
        assert!(write_atomic(&old, b"new", false).is_err());
        assert_eq!(std::fs::read(&old).unwrap(), b"old");
        write_atomic(&old, b"new", true).unwrap();
        assert_eq!(std::fs::read(&old).unwrap(), b"new");
        assert_eq!(std::fs::read(&input).unwrap(), b"keep");
        // no temporary file left behind
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.contains(".tmp-")), "{names:?}");
    }
}
