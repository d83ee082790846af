//! The desync dump: the last frames the loop read, and the boards before the move, expected and
//! read, written to a folder when a desync stops the loop.
//!
//! Layout: `NN-LABEL.png` (the [`RECENT_FRAMES`] latest frames, oldest first: `start`,
//! `moveN-readK`), `desync.txt` (the reason and the three boards as text) and `desync.json`
//! (`why`, `before`, `expected`, `read` as rows of values, `read` with `null` for unreadable
//! cells, `moves`, and `shape`).
use super::mirror::ReadGrid;
use crate::engine::{AnyBoard, Position};
use crate::fsio::{self, Existing};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// How many of the latest frames a dump holds.
pub const RECENT_FRAMES: usize = 6;

/// The latest frames the loop read, with their labels.
#[derive(Debug, Default)]
pub(super) struct RecentFrames(VecDeque<(String, image::RgbaImage)>);

impl RecentFrames {
    /// Keeps `img` as `label`, dropping the oldest beyond [`RECENT_FRAMES`].
    pub fn push(&mut self, label: &str, img: &image::RgbaImage) {
        self.0.push_back((label.to_string(), img.clone()));
        if self.0.len() > RECENT_FRAMES {
            self.0.pop_front();
        }
    }
}

/// What went wrong, for the dump.
pub(super) struct Desync<'a> {
    /// The reason in words.
    pub why: &'a str,
    /// The mirror's board before the move.
    pub before: &'a AnyBoard,
    /// The afterstate (before the spawn).
    pub expected: &'a AnyBoard,
    /// The last board read.
    pub read: &'a ReadGrid,
    /// Moves made before this one.
    pub moves: u64,
}

/// Where desync dumps go when the run is not recorded and no dump folder was given:
/// `$XDG_STATE_HOME/bot2048/dumps`, else `~/.local/state/bot2048/dumps`, else
/// `bot2048-dumps` in the system's temporary folder (never the current directory).
pub fn dump_root() -> PathBuf {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    dump_root_in(env("XDG_STATE_HOME"), env("HOME"))
}

/// [`dump_root`] for the given `$XDG_STATE_HOME` and `$HOME`.
fn dump_root_in(state: Option<PathBuf>, home: Option<PathBuf>) -> PathBuf {
    match (state, home) {
        (Some(s), _) if s.is_absolute() => s.join("bot2048").join("dumps"),
        (_, Some(h)) => h.join(".local").join("state").join("bot2048").join("dumps"),
        _ => std::env::temp_dir().join("bot2048-dumps"),
    }
}

/// The folder of a dump: `recording/desync` when recording, else `dump_dir`, else a new
/// `desync-<unix seconds>-<pid>` under [`dump_root`].
pub(super) fn folder(recording: Option<&Path>, dump_dir: Option<&Path>) -> PathBuf {
    match (recording, dump_dir) {
        (Some(r), _) => r.join("desync"),
        (None, Some(d)) => d.to_path_buf(),
        (None, None) => dump_root().join(format!(
            "desync-{}-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            std::process::id()
        )),
    }
}

/// Writes the dump into `dir`; returns the folder's path as text, or `None` when it could not be
/// created (files that fail to write are left out).
pub(super) fn write(dir: &Path, frames: &RecentFrames, d: &Desync<'_>) -> Option<String> {
    std::fs::create_dir_all(dir).ok()?;
    for (i, (label, img)) in frames.0.iter().enumerate() {
        let _ = fsio::write_png(
            &dir.join(format!("{i:02}-{label}.png")),
            img,
            Existing::Replace,
        );
    }
    let text = format!(
        "{}\n\nboard before the move:\n{}\nexpected (afterstate, before the spawn):\n{}\nread:\n{}\n",
        d.why, d.before, d.expected, d.read
    );
    let _ = fsio::write_bytes(&dir.join("desync.txt"), text.as_bytes(), Existing::Replace);
    let json = serde_json::json!({
        "why": d.why,
        "before": d.before.rows(),
        "expected": d.expected.rows(),
        "read": d.read.rows(),
        "moves": d.moves,
        "shape": d.before.shape(),
    });
    let json = json.to_string();
    let _ = fsio::write_bytes(&dir.join("desync.json"), json.as_bytes(), Existing::Replace);
    Some(dir.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumps_go_to_the_recording_the_given_folder_or_the_state_directory() {
        let r = Path::new("/tmp/rec");
        assert_eq!(folder(Some(r), Some(Path::new("d"))), r.join("desync"));
        assert_eq!(folder(None, Some(Path::new("d"))), PathBuf::from("d"));
        let unasked = folder(None, None);
        assert!(unasked.is_absolute(), "{}", unasked.display());
        assert!(unasked.starts_with(dump_root()), "{}", unasked.display());
        let xdg = dump_root_in(Some("/s".into()), Some("/h".into()));
        assert_eq!(xdg, PathBuf::from("/s/bot2048/dumps"));
        // a relative XDG_STATE_HOME is invalid by the spec: ignored
        let home = dump_root_in(Some("rel".into()), Some("/h".into()));
        assert_eq!(home, PathBuf::from("/h/.local/state/bot2048/dumps"));
        assert_eq!(
            dump_root_in(None, None),
            std::env::temp_dir().join("bot2048-dumps")
        );
    }

    #[test]
    fn a_dump_of_a_3x5_board_keeps_its_shape_and_the_latest_frames() {
        let dir = tempfile::tempdir().unwrap();
        let before = AnyBoard::from_rows(&[vec![2, 2, 0, 0, 0], vec![0; 5], vec![0; 5]]).unwrap();
        let expected = AnyBoard::from_rows(&[vec![4, 0, 0, 0, 0], vec![0; 5], vec![0; 5]]).unwrap();
        let mut read_rows = vec![vec![Some(4), Some(0), Some(0), Some(0), Some(8)]];
        read_rows.extend([
            vec![Some(0); 5],
            vec![None, Some(0), Some(0), Some(0), Some(0)],
        ]);
        let read = ReadGrid::from_rows(&read_rows).unwrap();
        let mut frames = RecentFrames::default();
        for i in 0..8u8 {
            frames.push(
                &format!("f{i}"),
                &image::RgbaImage::from_pixel(2, 2, image::Rgba([i, 0, 0, 255])),
            );
        }
        let out = dir.path().join("d");
        let d = Desync {
            why: "desync after 1 moves",
            before: &before,
            expected: &expected,
            read: &read,
            moves: 1,
        };
        assert_eq!(write(&out, &frames, &d), Some(out.display().to_string()));
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("desync.json")).unwrap())
                .unwrap();
        assert_eq!(j["shape"], "3x5");
        assert_eq!(
            j["before"],
            serde_json::json!([[2, 2, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]])
        );
        assert_eq!(j["read"][0][4], 8);
        assert_eq!(j["read"][2][0], serde_json::Value::Null);
        // 8 frames pushed, the last 6 kept, oldest first: f2..f7
        let mut pngs: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|n| n.ends_with(".png"))
            .collect();
        pngs.sort();
        assert_eq!(
            pngs,
            [
                "00-f2.png",
                "01-f3.png",
                "02-f4.png",
                "03-f5.png",
                "04-f6.png",
                "05-f7.png"
            ]
        );
        let text = std::fs::read_to_string(out.join("desync.txt")).unwrap();
        assert!(text.contains("     4     0     0     0     8\n"), "{text}");
    }
}
