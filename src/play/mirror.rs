//! The mirror: the engine's copy of the game, and the check of each board read against it.
//!
//! After a move the game's board must be the engine's afterstate (the move applied, merges
//! predicted) plus exactly one new tile, a 2 or a 4, in a cell that was empty after the move.
//! [`compare`] classifies a read board against that rule, on a board of any shape (the read and
//! the mirror must have the same shape). Cells whose value colour cannot tell apart (the read is
//! `None`, or the tile is at least [`TRUST_MIRROR_FROM`]) are taken from the mirror when the read
//! agrees that the cell holds a big tile.
use crate::engine::{AnyBoard, BoardError, Move, Position, Shape};
use std::fmt;

/// Tiles at least this large (4096) are known through the mirror: in the classic theme they share
/// one colour, so a reader may report them as unreadable or confuse them among themselves.
pub const TRUST_MIRROR_FROM: u64 = 4096;

/// A board as read: a [`Shape`] and one cell per position in reading order
/// (`index = row * cols + col`), `Some(0)` = empty, `Some(v)` = a tile of value `v`,
/// `None` = unreadable. Values are not checked (a reader may misread a 2 as a 3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadGrid {
    shape: Shape,
    cells: Vec<Option<u64>>,
}

impl ReadGrid {
    /// A read grid of `shape` from its cells in reading order.
    ///
    /// # Errors
    /// [`BoardError::WrongCellCount`] when `cells` does not have `shape.cells()` entries.
    pub fn new(shape: Shape, cells: Vec<Option<u64>>) -> Result<ReadGrid, BoardError> {
        if cells.len() != shape.cells() {
            return Err(BoardError::WrongCellCount {
                shape,
                want: shape.cells(),
                got: cells.len(),
            });
        }
        Ok(ReadGrid { shape, cells })
    }

    /// A read grid from rows of cells (`rows[r][c]`); the shape is the rows' own.
    ///
    /// # Errors
    /// [`BoardError::BadShape`] for ragged rows or a shape outside 2..=9 rows and columns.
    pub fn from_rows(rows: &[Vec<Option<u64>>]) -> Result<ReadGrid, BoardError> {
        let cols = rows.first().map_or(0, Vec::len);
        if rows.iter().any(|r| r.len() != cols) {
            return Err(BoardError::BadShape(
                "the rows of a read board must all have the same length".into(),
            ));
        }
        let shape = Shape::new(rows.len(), cols)?;
        ReadGrid::new(shape, rows.iter().flatten().copied().collect())
    }

    /// The grid a perfect reader would return for `board` (every cell read).
    pub fn of_board(board: &AnyBoard) -> ReadGrid {
        let shape = board.shape();
        let cells = (0..shape.cells())
            .map(|i| Some(value_at(board, i)))
            .collect();
        ReadGrid { shape, cells }
    }

    /// The shape read.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The cells in reading order.
    pub fn cells(&self) -> &[Option<u64>] {
        &self.cells
    }

    /// The rows of cells, `rows[r][c]` (`null` in JSON = unreadable).
    pub fn rows(&self) -> Vec<Vec<Option<u64>>> {
        self.cells
            .chunks(self.shape.cols())
            .map(<[_]>::to_vec)
            .collect()
    }

    /// The board read, when every cell was read as 0 or a tile the shape can hold.
    pub fn board(&self) -> Option<AnyBoard> {
        let values: Option<Vec<u64>> = self.cells.iter().copied().collect();
        AnyBoard::from_values(self.shape, &values?).ok()
    }
}

impl fmt::Display for ReadGrid {
    /// One line a row of values right-aligned in 6 columns, `?` = unreadable.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (r, row) in self.cells.chunks(self.shape.cols()).enumerate() {
            if r > 0 {
                writeln!(f)?;
            }
            for v in row {
                let s = v.map_or("?".to_string(), |v| v.to_string());
                write!(f, "{s:>6}")?;
            }
        }
        Ok(())
    }
}

/// The value (0 = empty) of cell `index` of `board`.
fn value_at(board: &AnyBoard, index: usize) -> u64 {
    match board.exponent_at(index) {
        0 => 0,
        e => 1u64 << e,
    }
}

/// One cell where the read and the mirror differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellDiff {
    /// Row, 0 = top.
    pub row: usize,
    /// Column, 0 = left.
    pub col: usize,
    /// The afterstate's value (0 = empty).
    pub expected: u64,
    /// The value read, `None` = unreadable.
    pub read: Option<u64>,
}

impl fmt::Display for CellDiff {
    /// In words, rows and columns counted from 0 at the top left, e.g. `row 0, column 3:
    /// expected empty, read a 2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = |v: u64| match v {
            0 => "empty".to_string(),
            v if v.to_string().starts_with('8') => format!("an {v}"),
            v => format!("a {v}"),
        };
        let read = match self.read {
            Some(v) => what(v),
            None => "nothing readable".to_string(),
        };
        let new_tile = match (self.expected, self.read) {
            (0, Some(2 | 4)) => " (the new tile, were the rest right)",
            _ => "",
        };
        write!(
            f,
            "row {}, column {}: expected {}, read {read}{new_tile}",
            self.row,
            self.col,
            what(self.expected)
        )
    }
}

/// How a read fails to be the afterstate plus one new tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// The read board has another shape than the mirror's.
    OtherShape {
        /// The mirror's shape.
        expected: Shape,
        /// The shape read.
        read: Shape,
    },
    /// These cells differ. A 2 or 4 read on a cell empty after the move (what would have been
    /// the new tile) is listed too, with `expected` 0, when something else is wrong.
    Cells(Vec<CellDiff>),
    /// The read is exactly the afterstate: the new tile has not shown yet.
    NoNewTile,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::OtherShape { expected, read } => {
                write!(f, "the board read is {read}, the mirror's is {expected}")
            }
            Mismatch::Cells(d) => {
                let cells: Vec<String> = d.iter().map(CellDiff::to_string).collect();
                write!(f, "{}", cells.join("; "))
            }
            Mismatch::NoNewTile => f.write_str(
                "expected the board after the move plus one new 2 or 4 in an empty cell, read the board after the move exactly, with no new tile",
            ),
        }
    }
}

/// The result of comparing a read with the mirror.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The read is the afterstate plus one spawned tile: `board` is the new mirror.
    Spawned {
        /// The new board (afterstate + spawn).
        board: AnyBoard,
        /// Where the new tile appeared, (row, col).
        cell: (usize, usize),
        /// Its value, 2 or 4.
        value: u64,
    },
    /// The read equals the board before the move: the key had no effect (dropped).
    Unchanged,
    /// Anything else.
    Desync(Mismatch),
}

/// True when a new tile of `value` read on `cell` after move `m` could instead be a tile of
/// `before` still on its way: `before` holds that value on the cell's line (its row for left
/// and right, its column for up and down) at the cell or upstream of it (on the side the tiles
/// come from). A frame from inside a slide shows such a tile on its old cell or between cells,
/// where the afterstate may have none, so it reads as "the afterstate plus one new tile" while
/// the real spawn is not yet drawn. Seen twice on 2048-qt under load: a 2 at the start of its
/// merge read as a new 2 on its old cell, and a 4 sliding two cells left read as a new 4 on the
/// cell it was crossing; the next key then went to another board. Such a frame must not be
/// accepted before the board has been still for the full quiet window.
pub fn spawn_could_be_sliding_tile(
    before: &AnyBoard,
    m: Move,
    cell: (usize, usize),
    value: u64,
) -> bool {
    let shape = before.shape();
    let (rows, cols) = (shape.rows(), shape.cols());
    let (r, c) = cell;
    if r >= rows || c >= cols {
        return false;
    }
    let upstream: Vec<(usize, usize)> = match m {
        Move::Left => (c..cols).map(|k| (r, k)).collect(),
        Move::Right => (0..=c).map(|k| (r, k)).collect(),
        Move::Up => (r..rows).map(|k| (k, c)).collect(),
        Move::Down => (0..=r).map(|k| (k, c)).collect(),
    };
    upstream
        .into_iter()
        .any(|(i, j)| value_at(before, i * cols + j) == value)
}

/// Whether a read cell agrees with the value the mirror knows.
fn agrees(expected: u64, read: Option<u64>) -> bool {
    read == Some(expected)
        || (expected >= TRUST_MIRROR_FROM && read.is_none_or(|v| v >= TRUST_MIRROR_FROM))
}

/// True when `read` shows exactly `board`: the same shape, every cell agreeing (big tiles through
/// the mirror as in [`compare`]).
pub fn same(board: &AnyBoard, read: &ReadGrid) -> bool {
    board.shape() == read.shape
        && (read.cells.iter().enumerate()).all(|(i, &got)| agrees(value_at(board, i), got))
}

/// Compares `read` with the afterstate `after` of a move made on `before` (both of one shape).
pub fn compare(before: &AnyBoard, after: &AnyBoard, read: &ReadGrid) -> Verdict {
    let shape = after.shape();
    if read.shape != shape {
        return Verdict::Desync(Mismatch::OtherShape {
            expected: shape,
            read: read.shape,
        });
    }
    let mut spawn: Option<(usize, u64)> = None;
    let mut diffs = Vec::new();
    let diff = |i: usize, expected: u64, read: Option<u64>| CellDiff {
        row: i / shape.cols(),
        col: i % shape.cols(),
        expected,
        read,
    };
    for (i, &got) in read.cells.iter().enumerate() {
        let e = value_at(after, i);
        if agrees(e, got) {
            continue;
        }
        match got {
            Some(v @ (2 | 4)) if e == 0 && spawn.is_none() => spawn = Some((i, v)),
            _ => diffs.push(diff(i, e, got)),
        }
    }
    if let (true, Some((i, v))) = (diffs.is_empty(), spawn) {
        return Verdict::Spawned {
            board: after.with_new_tile(i, v.trailing_zeros() as u8),
            cell: (i / shape.cols(), i % shape.cols()),
            value: v,
        };
    }
    if same(before, read) {
        return Verdict::Unchanged;
    }
    match spawn {
        Some((i, v)) => diffs.push(diff(i, 0, Some(v))),
        None if diffs.is_empty() => return Verdict::Desync(Mismatch::NoNewTile),
        None => {}
    }
    Verdict::Desync(Mismatch::Cells(diffs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Move;

    fn board(rows: &[&[u64]]) -> AnyBoard {
        AnyBoard::from_rows(&rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>()).unwrap()
    }

    fn grid(rows: &[&[u64]]) -> ReadGrid {
        ReadGrid::of_board(&board(rows))
    }

    /// The differing cells of a cell desync, sorted by (row, col).
    fn cells(v: &Verdict) -> Vec<(usize, usize, u64, Option<u64>)> {
        match v {
            Verdict::Desync(Mismatch::Cells(d)) => {
                let mut c: Vec<_> = d
                    .iter()
                    .map(|c| (c.row, c.col, c.expected, c.read))
                    .collect();
                c.sort_unstable();
                c
            }
            v => panic!("not a cell desync: {v:?}"),
        }
    }

    #[test]
    fn a_new_tile_where_a_tile_of_its_value_may_still_be_sliding_is_ambiguous() {
        // up on a column 2, 8, 2, 2 (top to bottom) merges the bottom two: the 2 leaving (3, 0)
        // looks like a new 2 there on a frame from the start of the slide; a 4 there cannot be
        // it, nor a 2 in a column without one
        let col = board(&[&[2, 0, 0, 0], &[8, 0, 0, 0], &[2, 0, 0, 0], &[2, 0, 0, 0]]);
        assert!(spawn_could_be_sliding_tile(&col, Move::Up, (3, 0), 2));
        assert!(!spawn_could_be_sliding_tile(&col, Move::Up, (3, 0), 4));
        assert!(!spawn_could_be_sliding_tile(&col, Move::Up, (3, 1), 2));
        // left on a row 4, _, 4, _: the right 4 crosses (0, 1) on its way to merge at (0, 0);
        // a new 4 at (0, 3): upstream of it is (0, 3) alone, empty
        let row = board(&[&[4, 0, 4, 0], &[0; 4], &[0; 4], &[0; 4]]);
        assert!(spawn_could_be_sliding_tile(&row, Move::Left, (0, 1), 4));
        assert!(!spawn_could_be_sliding_tile(&row, Move::Left, (0, 3), 4));
        // right: the tiles come from the left, so (0, 3) has both 4s upstream
        assert!(spawn_could_be_sliding_tile(&row, Move::Right, (0, 3), 4));
        // down: (3, 0) has the column's 2s and the 8 upstream
        assert!(spawn_could_be_sliding_tile(&col, Move::Down, (3, 0), 8));
        assert!(!spawn_could_be_sliding_tile(&col, Move::Down, (3, 0), 4));
    }

    #[test]
    fn left_merge_plus_one_spawn_is_accepted() {
        // [2 2 4 0] left -> [4 4 0 0] (worked by hand), a 2 spawns at (3,3)
        let before = board(&[&[2, 2, 4, 0], &[0; 4], &[0; 4], &[0; 4]]);
        let (after, score) = before.apply(Move::Left).unwrap();
        assert_eq!(score, 4);
        let read = grid(&[&[4, 4, 0, 0], &[0; 4], &[0; 4], &[0, 0, 0, 2]]);
        match compare(&before, &after, &read) {
            Verdict::Spawned {
                board: b,
                cell,
                value,
            } => {
                assert_eq!((cell, value), ((3, 3), 2));
                assert_eq!(b, board(&[&[4, 4, 0, 0], &[0; 4], &[0; 4], &[0, 0, 0, 2]]));
                assert!(
                    matches!(b, AnyBoard::Four(_)),
                    "a 4x4 board stays a bitboard"
                );
            }
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn two_spawns_a_wrong_merge_or_an_8_spawn_are_desyncs() {
        let before = board(&[&[2, 2, 4, 0], &[0; 4], &[0; 4], &[0; 4]]);
        let (after, _) = before.apply(Move::Left).unwrap();
        let two = grid(&[&[4, 4, 0, 2], &[0; 4], &[0; 4], &[0, 0, 0, 2]]);
        assert_eq!(
            cells(&compare(&before, &after, &two)),
            [(0, 3, 0, Some(2)), (3, 3, 0, Some(2))]
        );
        let wrong = grid(&[&[8, 0, 0, 0], &[0; 4], &[0; 4], &[0, 0, 0, 2]]);
        assert!(matches!(
            compare(&before, &after, &wrong),
            Verdict::Desync(_)
        ));
        let eight = grid(&[&[4, 4, 0, 0], &[0; 4], &[0; 4], &[0, 0, 0, 8]]);
        assert_eq!(
            cells(&compare(&before, &after, &eight)),
            [(3, 3, 0, Some(8))]
        );
        let none = grid(&[&[4, 4, 0, 0], &[0; 4], &[0; 4], &[0; 4]]);
        assert_eq!(
            compare(&before, &after, &none),
            Verdict::Desync(Mismatch::NoNewTile)
        );
        let unchanged = grid(&[&[2, 2, 4, 0], &[0; 4], &[0; 4], &[0; 4]]);
        assert_eq!(compare(&before, &after, &unchanged), Verdict::Unchanged);
    }

    #[test]
    fn a_mismatch_names_real_cells_in_words() {
        // 2 2 4 0 left -> 4 4 0 0; read: an 8 where the 4 at (0, 1) should be and a 2 at (3, 3)
        let before = board(&[&[2, 2, 4, 0], &[0; 4], &[0; 4], &[0; 4]]);
        let (after, _) = before.apply(Move::Left).unwrap();
        let read = grid(&[&[4, 8, 0, 0], &[0; 4], &[0; 4], &[0, 0, 0, 2]]);
        let v = compare(&before, &after, &read);
        let Verdict::Desync(m) = v else {
            panic!("{v:?}")
        };
        assert_eq!(
            m.to_string(),
            "row 0, column 1: expected a 4, read an 8; row 3, column 3: expected empty, read a 2 (the new tile, were the rest right)"
        );
        let mut unreadable = read.clone();
        unreadable.cells[1] = None;
        let Verdict::Desync(m) = compare(&before, &after, &unreadable) else {
            panic!()
        };
        assert!(
            m.to_string()
                .starts_with("row 0, column 1: expected a 4, read nothing readable; "),
            "{m}"
        );
        // the afterstate alone names no cell at all (no (4, 4) marker on a 4x4 board)
        let bare = compare(&before, &after, &ReadGrid::of_board(&after));
        let Verdict::Desync(m) = bare else {
            panic!("{bare:?}")
        };
        assert_eq!(m, Mismatch::NoNewTile);
        assert!(!m.to_string().contains("row"), "{m}");
        assert!(m.to_string().contains("no new tile"), "{m}");
    }

    #[test]
    fn big_tiles_are_known_through_the_mirror() {
        // 4096 4096 -> 8192 on the left; the reader cannot tell 4096 from 8192 (both "big")
        let before = board(&[&[4096, 4096, 0, 0], &[8192, 0, 0, 0], &[0; 4], &[0; 4]]);
        let (after, score) = before.apply(Move::Left).unwrap();
        assert_eq!(score, 8192);
        let read = ReadGrid::from_rows(&[
            vec![Some(4096), Some(0), Some(0), Some(0)],
            vec![None, Some(0), Some(0), Some(0)],
            vec![Some(0); 4],
            vec![Some(0), Some(4), Some(0), Some(0)],
        ])
        .unwrap();
        match compare(&before, &after, &read) {
            Verdict::Spawned { board: b, .. } => assert_eq!(
                b,
                board(&[&[8192, 0, 0, 0], &[8192, 0, 0, 0], &[0; 4], &[0, 4, 0, 0]])
            ),
            v => panic!("{v:?}"),
        }
        // but a small tile where a big one should be is a desync
        let bad = grid(&[&[2048, 0, 0, 0], &[8192, 0, 0, 0], &[0; 4], &[0, 4, 0, 0]]);
        assert_eq!(
            cells(&compare(&before, &after, &bad)),
            [(0, 0, 8192, Some(2048)), (3, 1, 0, Some(4))]
        );
    }

    #[test]
    fn on_3x3_a_spawn_is_accepted_a_wrong_tile_is_a_desync_and_no_change_is_unchanged() {
        // by hand: [2 2 0 / 0 4 4 / 0 0 0] left -> [4 0 0 / 8 0 0 / 0 0 0], score 4 + 8
        let before = board(&[&[2, 2, 0], &[0, 4, 4], &[0, 0, 0]]);
        let (after, score) = before.apply(Move::Left).unwrap();
        assert_eq!(after, board(&[&[4, 0, 0], &[8, 0, 0], &[0, 0, 0]]));
        assert_eq!(score, 12);
        let read = grid(&[&[4, 0, 0], &[8, 0, 2], &[0, 0, 0]]);
        assert_eq!(
            compare(&before, &after, &read),
            Verdict::Spawned {
                board: board(&[&[4, 0, 0], &[8, 0, 2], &[0, 0, 0]]),
                cell: (1, 2),
                value: 2
            }
        );
        // an 8 is never a new tile; a merge the engine did not make is a desync
        let eight = grid(&[&[4, 0, 0], &[8, 0, 0], &[0, 0, 8]]);
        assert_eq!(
            cells(&compare(&before, &after, &eight)),
            [(2, 2, 0, Some(8))]
        );
        // 4 4 read for the 8: the 4 on (1, 1) could be a new tile, but the 8 is missing
        let wrong = grid(&[&[4, 0, 0], &[4, 4, 0], &[0, 0, 0]]);
        assert_eq!(
            cells(&compare(&before, &after, &wrong)),
            [(1, 0, 8, Some(4)), (1, 1, 0, Some(4))]
        );
        assert_eq!(
            compare(
                &before,
                &after,
                &grid(&[&[2, 2, 0], &[0, 4, 4], &[0, 0, 0]])
            ),
            Verdict::Unchanged
        );
        assert!(same(&before, &grid(&[&[2, 2, 0], &[0, 4, 4], &[0, 0, 0]])));
    }

    #[test]
    fn on_5x5_a_spawn_is_accepted_a_wrong_tile_is_a_desync_and_no_change_is_unchanged() {
        // by hand, right: [2 2 2 0 0] -> [0 0 0 2 4] (the pair nearest the right merges, 4),
        // [4 0 4 0 8] -> [0 0 0 8 8] (8 stays, the two 4s merge, 8): score 12
        let before = board(&[
            &[2, 2, 2, 0, 0],
            &[0; 5],
            &[4, 0, 4, 0, 8],
            &[0; 5],
            &[0, 0, 0, 0, 4],
        ]);
        let (after, score) = before.apply(Move::Right).unwrap();
        let want: [&[u64]; 5] = [
            &[0, 0, 0, 2, 4],
            &[0; 5],
            &[0, 0, 0, 8, 8],
            &[0; 5],
            &[0, 0, 0, 0, 4],
        ];
        assert_eq!(after, board(&want));
        assert_eq!(score, 12);
        // a new 4 at the bottom-left corner
        let mut spawned = want;
        let last = [4, 0, 0, 0, 4];
        spawned[4] = &last;
        assert_eq!(
            compare(&before, &after, &grid(&spawned)),
            Verdict::Spawned {
                board: board(&spawned),
                cell: (4, 0),
                value: 4
            }
        );
        // a 2 read where the merge made a 4, plus the new tile
        let mut wrong = spawned;
        let top = [0, 0, 0, 2, 2];
        wrong[0] = &top;
        assert_eq!(
            cells(&compare(&before, &after, &grid(&wrong))),
            [(0, 4, 4, Some(2)), (4, 0, 0, Some(4))]
        );
        // the afterstate alone: (4, 4) is a real cell here, not a marker
        assert_eq!(
            compare(&before, &after, &grid(&want)),
            Verdict::Desync(Mismatch::NoNewTile)
        );
        let unchanged = ReadGrid::of_board(&before);
        assert_eq!(compare(&before, &after, &unchanged), Verdict::Unchanged);
        // a read of another shape never matches
        let four = grid(&[&[0; 4], &[0; 4], &[0; 4], &[0; 4]]);
        assert!(matches!(
            compare(&before, &after, &four),
            Verdict::Desync(Mismatch::OtherShape { .. })
        ));
        assert!(!same(&before, &four));
    }

    #[test]
    fn read_grids_keep_their_shape_and_refuse_a_wrong_cell_count() {
        let g = ReadGrid::from_rows(&[vec![Some(2), None, Some(0)], vec![Some(0); 3]]).unwrap();
        assert_eq!(g.shape().to_string(), "2x3");
        assert_eq!(g.rows()[0], vec![Some(2), None, Some(0)]);
        assert_eq!(g.board(), None, "an unreadable cell");
        assert_eq!(g.to_string(), "     2     ?     0\n     0     0     0");
        assert!(ReadGrid::new(Shape::FOUR, vec![Some(0); 15]).is_err());
        assert!(ReadGrid::from_rows(&[vec![Some(0); 3], vec![Some(0); 2]]).is_err());
        let g = ReadGrid::from_rows(&[vec![Some(3), Some(0)], vec![Some(0); 2]]).unwrap();
        assert_eq!(g.board(), None, "3 is no tile");
    }
}
