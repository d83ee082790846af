//! Learning by playing (issue 24), the engine's side: which cells of a read the engine can
//! vouch for after a move, and the reader's lesson on them ([`Reader::learn`]). Used by `play`
//! after each key (`play::turn`) and by `advise` between two boards the user made; and where what
//! was learned is saved at the end ([`save_learned`], under [`learned_name`]).
use super::mirror::{self, ReadGrid, Verdict};
use crate::engine::{AnyBoard, Move, Position};
use crate::vision::profile::{self, ProfileError};
use crate::vision::{LearnRefused, Reader, TileLesson};
use std::path::PathBuf;

/// What the engine vouches for in a read after a move ([`engine_fill`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineFill {
    /// The read with the cells it could not read taken from the afterstate.
    pub grid: ReadGrid,
    /// The new board: the afterstate plus the new tile read.
    pub board: AnyBoard,
    /// The cells taken, as (row, column, value).
    pub cells: Vec<(usize, usize, u32)>,
}

/// The read `g` with the cells it could not read taken from the afterstate `after` of a move
/// made on `before`, when that makes it exactly the afterstate plus one new tile. `None` when `g` has no such
/// cell (an unreadable cell empty after the move could be the new tile: never taken; big tiles
/// the mirror trusts anyway, [`mirror::TRUST_MIRROR_FROM`], are not taken either), or when any
/// other cell disagrees (another value, empty where a tile should be, no new tile or two).
pub fn engine_fill(before: &AnyBoard, after: &AnyBoard, g: &ReadGrid) -> Option<EngineFill> {
    if g.shape() != after.shape() {
        return None;
    }
    let expected = ReadGrid::of_board(after);
    let known = |i: usize| {
        expected.cells()[i]
            .filter(|&v| v > 0 && v < mirror::TRUST_MIRROR_FROM)
            .and_then(|v| u32::try_from(v).ok())
    };
    let unread: Vec<(usize, u32)> = (0..g.cells().len())
        .filter(|&i| g.cells()[i].is_none())
        .filter_map(|i| known(i).map(|v| (i, v)))
        .collect();
    if unread.is_empty() {
        return None;
    }
    let mut cells = g.cells().to_vec();
    for &(i, v) in &unread {
        cells[i] = Some(u64::from(v));
    }
    let taken = ReadGrid::new(g.shape(), cells).ok()?;
    let Verdict::Spawned { board, .. } = mirror::compare(before, after, &taken) else {
        return None;
    };
    let cols = g.shape().cols();
    let cells = unread
        .iter()
        .map(|&(i, v)| (i / cols, i % cols, v))
        .collect();
    Some(EngineFill {
        grid: taken,
        board,
        cells,
    })
}

/// The rows of `board` as `u32` values (a tile beyond `u32::MAX`, possible only on boards of
/// more than 30 cells, becomes `u32::MAX`, which no look is learned for).
pub fn rows_u32(board: &AnyBoard) -> Vec<Vec<u32>> {
    board
        .rows()
        .iter()
        .map(|r| {
            r.iter()
                .map(|&v| u32::try_from(v).unwrap_or(u32::MAX))
                .collect()
        })
        .collect()
}

/// Learns the looks of the cells [`engine_fill`] takes from the engine, on `image` (the frame
/// `g` was read from): `None` when it takes none; else the filled grid and the lessons, or why
/// the reader would not learn them (then nothing is learned, and `g` stands).
pub fn learn_after(
    reader: &mut Reader,
    image: &image::RgbaImage,
    before: &AnyBoard,
    after: &AnyBoard,
    g: &ReadGrid,
) -> Option<Result<(ReadGrid, Vec<TileLesson>), LearnRefused>> {
    let fill = engine_fill(before, after, g)?;
    Some(
        reader
            .learn(image, &rows_u32(&fill.board), &fill.cells)
            .map(|lessons| (fill.grid, lessons)),
    )
}

/// For `advise`, which does not know the user's key: the one move from `last` (the last board
/// read whole) after which `g` is the afterstate plus one new tile once the cells it could not
/// read are taken from the engine ([`engine_fill`]); `None` when no move or more than one fits.
pub fn the_move(last: &AnyBoard, g: &ReadGrid) -> Option<(AnyBoard, AnyBoard)> {
    let mut fits = Move::ALL.iter().filter_map(|&m| {
        let (after, _) = last.apply(m)?;
        engine_fill(last, &after, g).map(|_| (*last, after))
    });
    match (fits.next(), fits.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// The name a profile learned while playing is saved under (before [`profile::save_learned`]
/// numbers it): `NAME-learned` when learning started from the built-in profile NAME, the user
/// profile's own name when it started from one (saved as `NAME.2`, … beside it), and
/// `learned-TITLE` (the window title in lower case, letters and digits, other runs as `-`, at
/// most about 40 characters) when the game was read without a profile.
pub fn learned_name(from: Option<&str>, title: &str) -> String {
    match from {
        Some(n) if profile::is_builtin(n) => format!("{n}-learned"),
        Some(n) if profile::is_plain_name(n) => n.to_string(),
        _ => {
            let mut slug = String::new();
            for c in title.chars().flat_map(char::to_lowercase) {
                if c.is_ascii_alphanumeric() {
                    slug.push(c);
                } else if !slug.is_empty() && !slug.ends_with('-') {
                    slug.push('-');
                }
                if slug.len() >= 40 {
                    break;
                }
            }
            let slug = slug.trim_end_matches('-');
            if slug.is_empty() {
                "learned-game".into()
            } else {
                format!("learned-{slug}")
            }
        }
    }
}

/// A profile learned while playing, saved ([`save_learned`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedLearned {
    /// The profile's name (the file's name without `.toml`), e.g. `web-2048-learned.2`.
    pub name: String,
    /// The file written.
    pub path: PathBuf,
    /// The values of the tiles whose looks were learned, in the order learned.
    pub values: Vec<u32>,
}

/// Why a profile learned while playing was not saved ([`save_learned`]).
#[derive(Debug, thiserror::Error)]
pub enum SaveLearnedError {
    /// Neither `BOT2048_PROFILES`, `XDG_CONFIG_HOME` nor `HOME` names a user profile folder.
    #[error("no user profile folder (set BOT2048_PROFILES or HOME)")]
    NoProfileFolder,
    /// The profile could not be written (no free name, the folder or file not writable).
    #[error(transparent)]
    Save(#[from] ProfileError),
}

/// Saves what `reader` learned while playing the window titled `title` to the user profile
/// folder ([`profile::user_dir`]) under [`learned_name`], never over a built-in name or an
/// existing file ([`profile::save_learned`]). `Ok(None)` when nothing was learned.
///
/// # Errors
/// [`SaveLearnedError::NoProfileFolder`] when there is no user profile folder;
/// [`SaveLearnedError::Save`] when the profile cannot be written.
pub fn save_learned(
    reader: &Reader,
    title: &str,
) -> Result<Option<SavedLearned>, SaveLearnedError> {
    let Some(learned) = reader.learned_profile() else {
        return Ok(None);
    };
    let dir = profile::user_dir().ok_or(SaveLearnedError::NoProfileFolder)?;
    save_learned_in(reader, learned, title, dir).map(Some)
}

/// [`save_learned`] into the folder `dir`, for the profile `learned` of `reader`.
fn save_learned_in(
    reader: &Reader,
    learned: &crate::vision::Profile,
    title: &str,
    dir: PathBuf,
) -> Result<SavedLearned, SaveLearnedError> {
    let base = learned_name(reader.learned_from(), title);
    let (name, path) = profile::save_learned(learned, &base, &dir)?;
    Ok(SavedLearned {
        name,
        path,
        values: reader.lessons().iter().map(|l| l.value).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &[&[u64]]) -> AnyBoard {
        AnyBoard::from_rows(&rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>()).unwrap()
    }

    fn read(rows: &[&[Option<u64>]]) -> ReadGrid {
        ReadGrid::from_rows(&rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>()).unwrap()
    }

    const E: Option<u64> = Some(0);

    #[test]
    fn only_a_known_tile_is_taken_and_only_when_the_rest_fits() {
        // 2 2 0 0 left -> 4 0 0 0 (worked by hand); the 4 unreadable, a new 2 at (3, 3)
        let last = board(&[&[2, 2, 0, 0], &[0; 4], &[0; 4], &[0; 4]]);
        let g = read(&[&[None, E, E, E], &[E; 4], &[E; 4], &[E, E, E, Some(2)]]);
        let (after, _) = last.apply(Move::Left).unwrap();
        let fill = engine_fill(&last, &after, &g).unwrap();
        assert_eq!(fill.cells, [(0, 0, 4)]);
        assert_eq!(
            fill.board,
            board(&[&[4, 0, 0, 0], &[0; 4], &[0; 4], &[0, 0, 0, 2]])
        );
        // advise: left is the one move that explains it (right would put the 4 at (0, 3), read
        // empty; down moves the 2s to row 3; up changes nothing)
        assert_eq!(the_move(&last, &g), Some((last, after)));
        // the unreadable cell is the new tile's (empty after the move): never taken
        let spawn = read(&[&[Some(4), E, E, E], &[E; 4], &[E; 4], &[E, E, E, None]]);
        assert_eq!(engine_fill(&last, &after, &spawn), None);
        // another cell disagrees (a 2 where the engine has nothing, and no other new tile
        // would make it fit: two new tiles): nothing taken
        let two = read(&[
            &[None, E, E, Some(2)],
            &[E; 4],
            &[E; 4],
            &[E, E, E, Some(2)],
        ]);
        assert_eq!(engine_fill(&last, &after, &two), None);
        assert_eq!(the_move(&last, &two), None);
        // every cell read: nothing to take
        let whole = read(&[&[Some(4), E, E, E], &[E; 4], &[E; 4], &[E, E, E, Some(2)]]);
        assert_eq!(engine_fill(&last, &after, &whole), None);
    }

    /// Names worked out by hand from the rule: a built-in's name plus `-learned`, a user
    /// profile's own name, else `learned-` and the title's letters and digits in lower case with
    /// one `-` for each run of anything else.
    #[test]
    fn a_learned_profile_is_named_after_its_start_or_the_window() {
        assert_eq!(learned_name(Some("web-2048"), "2048"), "web-2048-learned");
        assert_eq!(learned_name(Some("gnome-2048"), "x"), "gnome-2048-learned");
        assert_eq!(learned_name(Some("mine"), "2048"), "mine");
        assert_eq!(learned_name(None, "GNOME 2048"), "learned-gnome-2048");
        assert_eq!(
            learned_name(None, "  My 2048 -- Game!"),
            "learned-my-2048-game"
        );
        assert_eq!(learned_name(None, "!!!"), "learned-game");
        assert_eq!(learned_name(None, ""), "learned-game");
        // a path is not a plain name: named after the window
        assert_eq!(learned_name(Some("/tmp/p.toml"), "2048"), "learned-2048");
    }
}
