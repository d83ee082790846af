//! The mirror: the engine's copy of the game, and the check of each board read against it.
//!
//! After a move the game's board must be the engine's afterstate (the move applied, merges
//! predicted) plus exactly one new tile, a 2 or a 4, in a cell that was empty after the move.
//! [`compare`] classifies a read board against that rule. Cells whose value colour cannot tell
//! apart (the read is `None`, or the tile is at least [`TRUST_MIRROR_FROM`]) are taken from the
//! mirror when the read agrees that the cell holds a big tile.
use crate::engine::Board;

/// Tiles at least this large (4096) are known through the mirror: in the classic theme they share
/// one colour, so a reader may report them as unreadable or confuse them among themselves.
pub const TRUST_MIRROR_FROM: u32 = 4096;

/// A board as read: `cells[row][col]`, `Some(0)` = empty, `None` = unreadable.
pub type ReadGrid = [[Option<u32>; 4]; 4];

/// The result of comparing a read with the mirror.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The read is the afterstate plus one spawned tile: `board` is the new mirror.
    Spawned {
        /// The new board (afterstate + spawn).
        board: Board,
        /// Where the new tile appeared, (row, col).
        cell: (usize, usize),
        /// Its value, 2 or 4.
        value: u32,
    },
    /// The read equals the board before the move: the key had no effect (dropped).
    Unchanged,
    /// Anything else: the differing cells as (row, col, expected, read); `expected` is the
    /// afterstate value (0 = empty), `read` `None` when unreadable.
    Desync(Vec<(usize, usize, u32, Option<u32>)>),
}

/// Whether a read cell agrees with the value the mirror knows.
fn agrees(expected: u32, read: Option<u32>) -> bool {
    read == Some(expected)
        || (expected >= TRUST_MIRROR_FROM && read.is_none_or(|v| v >= TRUST_MIRROR_FROM))
}

/// True when `read` shows exactly `board` (big tiles through the mirror as in [`compare`]).
pub fn same(board: Board, read: &ReadGrid) -> bool {
    let vals = board.to_values();
    (0..4).all(|r| (0..4).all(|c| agrees(vals[r][c], read[r][c])))
}

/// Compares `read` with the afterstate `after` of a move made on `before`.
pub fn compare(before: Board, after: Board, read: &ReadGrid) -> Verdict {
    let want = after.to_values();
    let mut spawn: Option<(usize, usize, u32)> = None;
    let mut diffs = Vec::new();
    for r in 0..4 {
        for c in 0..4 {
            let e = want[r][c];
            let got = read[r][c];
            if agrees(e, got) {
                continue;
            }
            if e == 0 && matches!(got, Some(2) | Some(4)) && spawn.is_none() {
                spawn = Some((r, c, got.unwrap_or(2)));
                continue;
            }
            diffs.push((r, c, e, got));
        }
    }
    if diffs.is_empty() {
        if let Some((r, c, v)) = spawn {
            let exp = v.trailing_zeros() as u8;
            return Verdict::Spawned {
                board: after.with_exponent(r, c, exp),
                cell: (r, c),
                value: v,
            };
        }
    }
    if same(before, read) {
        return Verdict::Unchanged;
    }
    if let Some((r, c, v)) = spawn {
        diffs.push((r, c, 0, Some(v)));
    }
    if diffs.is_empty() {
        // the afterstate exactly, with no new tile: the spawn has not shown yet
        diffs.push((4, 4, 0, None));
    }
    Verdict::Desync(diffs)
}

/// Formats a read grid as 4 lines (`?` = unreadable).
pub fn format_read(read: &ReadGrid) -> String {
    read.iter()
        .map(|row| {
            row.iter()
                .map(|v| v.map_or("?".to_string(), |v| v.to_string()))
                .map(|s| format!("{s:>6}"))
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Move;

    fn grid(v: [[u32; 4]; 4]) -> ReadGrid {
        v.map(|row| row.map(Some))
    }

    #[test]
    fn left_merge_plus_one_spawn_is_accepted() {
        // [2 2 4 0] left -> [4 4 0 0] (worked by hand), a 2 spawns at (3,3)
        let before = Board::from_values([[2, 2, 4, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
        let (after, score) = before.apply(Move::Left).unwrap();
        assert_eq!(score, 4);
        let read = grid([[4, 4, 0, 0], [0; 4], [0; 4], [0, 0, 0, 2]]);
        match compare(before, after, &read) {
            Verdict::Spawned { board, cell, value } => {
                assert_eq!(cell, (3, 3));
                assert_eq!(value, 2);
                assert_eq!(
                    board.to_values(),
                    [[4, 4, 0, 0], [0; 4], [0; 4], [0, 0, 0, 2]]
                );
            }
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn two_spawns_a_wrong_merge_or_an_8_spawn_are_desyncs() {
        let before = Board::from_values([[2, 2, 4, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
        let (after, _) = before.apply(Move::Left).unwrap();
        let two = grid([[4, 4, 0, 2], [0; 4], [0; 4], [0, 0, 0, 2]]);
        assert!(matches!(compare(before, after, &two), Verdict::Desync(_)));
        let wrong = grid([[8, 0, 0, 0], [0; 4], [0; 4], [0, 0, 0, 2]]);
        assert!(matches!(compare(before, after, &wrong), Verdict::Desync(_)));
        let eight = grid([[4, 4, 0, 0], [0; 4], [0; 4], [0, 0, 0, 8]]);
        assert!(matches!(compare(before, after, &eight), Verdict::Desync(_)));
        let none = grid([[4, 4, 0, 0], [0; 4], [0; 4], [0; 4]]);
        assert!(matches!(compare(before, after, &none), Verdict::Desync(_)));
        let unchanged = grid([[2, 2, 4, 0], [0; 4], [0; 4], [0; 4]]);
        assert_eq!(compare(before, after, &unchanged), Verdict::Unchanged);
    }

    #[test]
    fn big_tiles_are_known_through_the_mirror() {
        // 4096 4096 -> 8192 on the left; the reader cannot tell 4096 from 8192 (both "big")
        let before =
            Board::from_values([[4096, 4096, 0, 0], [8192, 0, 0, 0], [0; 4], [0; 4]]).unwrap();
        let (after, score) = before.apply(Move::Left).unwrap();
        assert_eq!(score, 8192);
        let mut read = grid([[4096, 0, 0, 0], [8192, 0, 0, 0], [0; 4], [0, 4, 0, 0]]);
        read[1][0] = None;
        match compare(before, after, &read) {
            Verdict::Spawned { board, .. } => {
                assert_eq!(board.to_values()[0][0], 8192);
                assert_eq!(board.to_values()[1][0], 8192);
                assert_eq!(board.to_values()[3][1], 4);
            }
            v => panic!("{v:?}"),
        }
        // but a small tile where a big one should be is a desync
        let bad = grid([[2048, 0, 0, 0], [8192, 0, 0, 0], [0; 4], [0, 4, 0, 0]]);
        assert!(matches!(compare(before, after, &bad), Verdict::Desync(_)));
    }
}
