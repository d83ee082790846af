//! Writing files safely: every file the crate writes (images, charts, network weights,
//! checkpoints, endgame tables) goes through [`write_atomic`].
//!
//! A file is written to a temporary file in the target's own folder (`.NAME.tmp-PID-N`, so it
//! is on the same file system), flushed to disk, and only then given the target's name: by a
//! rename ([`Existing::Replace`]) or by a hard link that fails if the name is taken
//! ([`Existing::Keep`], so a file that appeared meanwhile is never overwritten). A reader thus
//! sees the old file or the whole new one, never a half-written one; a failed write leaves no
//! temporary file behind.
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What [`write_atomic`] does when the target already exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Keep it: the write fails with [`WriteError::Exists`] (checked atomically at the end).
    Keep,
    /// Replace it atomically.
    Replace,
}

impl Existing {
    /// [`Existing::Replace`] when `force` (a `--force` flag), else [`Existing::Keep`].
    pub fn replace_if(force: bool) -> Existing {
        if force {
            Existing::Replace
        } else {
            Existing::Keep
        }
    }
}

/// Why a file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The target exists and [`Existing::Keep`] was asked.
    #[error("{} already exists", .0.display())]
    Exists(PathBuf),
    /// Creating, writing, syncing or naming the file failed.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The target file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

impl WriteError {
    /// The target file and the error as an [`io::Error`] (kind `AlreadyExists` for
    /// [`WriteError::Exists`]), for callers whose own error holds those two.
    pub fn into_parts(self) -> (PathBuf, io::Error) {
        match self {
            WriteError::Exists(path) => (path, io::ErrorKind::AlreadyExists.into()),
            WriteError::Io { path, source } => (path, source),
        }
    }
}

/// Temporary files made by this process so far (their names must differ between threads).
static TEMP_COUNT: AtomicU64 = AtomicU64::new(0);

/// A fresh temporary path in `path`'s folder.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let n = TEMP_COUNT.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.tmp-{}-{n}", std::process::id()))
}

/// Writes `path` atomically: `fill` writes the contents into a buffered temporary file beside
/// it, which is flushed, synced to disk and then given the name `path` as `existing` says. The
/// folder must exist.
///
/// # Errors
/// [`WriteError::Exists`] when `path` exists and `existing` is [`Existing::Keep`];
/// [`WriteError::Io`] when `fill` or any file operation fails. The temporary file is removed.
pub fn write_atomic(
    path: &Path,
    existing: Existing,
    fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> Result<(), WriteError> {
    let tmp = temp_path(path);
    let result = write_temp(&tmp, fill).and_then(|()| match existing {
        Existing::Replace => std::fs::rename(&tmp, path),
        Existing::Keep => std::fs::hard_link(&tmp, path).and_then(|()| std::fs::remove_file(&tmp)),
    });
    match result {
        Ok(()) => {
            sync_folder(path);
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            if e.kind() == io::ErrorKind::AlreadyExists && existing == Existing::Keep {
                return Err(WriteError::Exists(path.to_path_buf()));
            }
            Err(WriteError::Io {
                path: path.to_path_buf(),
                source: e,
            })
        }
    }
}

/// [`write_atomic`] with the whole contents at hand.
///
/// # Errors
/// As [`write_atomic`].
pub fn write_bytes(path: &Path, bytes: &[u8], existing: Existing) -> Result<(), WriteError> {
    write_atomic(path, existing, |w| w.write_all(bytes))
}

/// [`write_atomic`] of `img` encoded as PNG (the encoder `image`'s own `save` uses).
///
/// # Errors
/// As [`write_atomic`]; an encoding error is a [`WriteError::Io`].
pub fn write_png(
    path: &Path,
    img: &image::RgbaImage,
    existing: Existing,
) -> Result<(), WriteError> {
    use image::ImageEncoder;
    write_atomic(path, existing, |w| {
        image::codecs::png::PngEncoder::new(w)
            .write_image(
                img.as_raw(),
                img.width(),
                img.height(),
                image::ExtendedColorType::Rgba8,
            )
            .map_err(io::Error::other)
    })
}

/// Creates `tmp` (refusing one that exists), fills it, flushes and syncs it.
fn write_temp(
    tmp: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let file = File::options().write(true).create_new(true).open(tmp)?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    fill(&mut w)?;
    w.flush()?;
    w.get_ref().sync_all()
}

/// Syncs the folder holding `path`, so its new name survives a crash (best effort: not every
/// file system lets a folder be opened for that).
fn sync_folder(path: &Path) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Makes `path` a hard link to the file `target` (in the same folder), replacing what `path` was
/// atomically: a temporary link, renamed over `path`.
///
/// # Errors
/// [`WriteError::Io`] when linking or renaming fails (e.g. a file system without hard links);
/// `path` is then unchanged and no temporary link is left.
pub fn replace_with_link(target: &Path, path: &Path) -> Result<(), WriteError> {
    let tmp = temp_path(path);
    let linked = std::fs::hard_link(target, &tmp).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(source) = linked {
        let _ = std::fs::remove_file(&tmp);
        return Err(WriteError::Io {
            path: path.to_path_buf(),
            source,
        });
    }
    sync_folder(path);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_refuses_an_existing_file_and_leaves_it_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        write_bytes(&path, b"first", Existing::Keep).unwrap();
        let again = write_bytes(&path, b"second", Existing::Keep);
        assert!(matches!(again, Err(WriteError::Exists(_))));
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        write_bytes(&path, b"third", Existing::Replace).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"third");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_fill_keeps_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.bin");
        write_bytes(&path, b"old", Existing::Replace).unwrap();
        let failed = write_atomic(&path, Existing::Replace, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        assert!(matches!(failed, Err(WriteError::Io { .. })));
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_link_replaces_the_file_with_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let (kept, path) = (dir.path().join("net.0001"), dir.path().join("net"));
        write_bytes(&path, b"old", Existing::Replace).unwrap();
        write_bytes(&kept, b"new", Existing::Replace).unwrap();
        replace_with_link(&kept, &path).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
