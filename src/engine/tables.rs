//! Row tables for the bitboard, and the slow, obvious functions they are built from.
//!
//! A row is 16 bits: four 4-bit log2 exponents, cell 0 (the leftmost cell of a row, or the top
//! cell of a column read as a line, [`super::column`]) in the lowest nibble. [`slide_row_slow`]
//! slides one row of exponents toward index 0 the way 2048 does; the tables below hold its result
//! for every one of the 65,536 rows, computed at compile time (`const fn`, no build script, no
//! `static mut`): rows after left/right ([`ROW_LEFT`], [`ROW_RIGHT`]), columns after up/down
//! already spread into board position ([`COL_BOTH`], so up/down need no transpose back), and the
//! merge score of a line ([`LINE_SCORE`]).
//!
//! A merge of two 32768 tiles (exponent 15) makes 65536, which does not fit a nibble. The table
//! entry for such a row is not used: [`super::Board`] sees it coming and takes its exact slow path
//! (see `Board::apply`). The table saturates those cells at 15 only so that it is well defined.
//!
//! Idea of the tables: nneonneo/2048-ai, `2048.cpp` `init_tables` (row tables over 65,536 rows).

/// The largest exponent a tile may have: 17, i.e. 131072, the largest tile reachable on 4×4.
pub const MAX_EXPONENT: u8 = 17;

/// Slides one line of log2 exponents toward index 0, merging equal neighbours the 2048 way.
///
/// `line[0]` is the cell the tiles move toward; 0 is an empty cell, `e` in 1..=17 a tile of value
/// 2^e. Tiles slide over empty cells; two equal tiles meeting merge into one of exponent `e + 1`,
/// and each tile merges at most once per move, pairs taken from the side the tiles move toward
/// (`[1,1,1,1]` → `[2,2,0,0]`). Two 131072 tiles (exponent 17) never merge: the result would be
/// beyond the board's range, and two of them never occur in a real 4×4 game.
///
/// Returns the new line and the merge score: the sum of the values (not exponents) of the tiles
/// made by merges.
///
/// This is the reference the fast tables are built from and tested against on all 65,536 rows.
pub const fn slide_row_slow(line: [u8; 4]) -> ([u8; 4], u32) {
    // Gather the tiles in order, skipping empty cells.
    let mut tiles = [0u8; 4];
    let mut count = 0;
    let mut i = 0;
    while i < 4 {
        if line[i] != 0 {
            tiles[count] = line[i];
            count += 1;
        }
        i += 1;
    }
    // Merge pairs from the front; each tile merges at most once.
    let mut out = [0u8; 4];
    let mut score = 0u32;
    let mut read = 0;
    let mut write = 0;
    while read < count {
        let e = tiles[read];
        if read + 1 < count && tiles[read + 1] == e && e < MAX_EXPONENT {
            out[write] = e + 1;
            score += 1u32 << (e + 1);
            read += 2;
        } else {
            out[write] = e;
            read += 1;
        }
        write += 1;
    }
    (out, score)
}

/// Splits a 16-bit row into its four exponents, lowest nibble first.
pub const fn unpack_row(row: u16) -> [u8; 4] {
    [
        (row & 0xf) as u8,
        ((row >> 4) & 0xf) as u8,
        ((row >> 8) & 0xf) as u8,
        ((row >> 12) & 0xf) as u8,
    ]
}

/// Packs four exponents (each clamped to 15) into a 16-bit row, `line[0]` in the lowest nibble.
pub const fn pack_row(line: [u8; 4]) -> u16 {
    let mut row = 0u16;
    let mut i = 0;
    while i < 4 {
        let e = if line[i] > 15 { 15 } else { line[i] };
        row |= (e as u16) << (4 * i);
        i += 1;
    }
    row
}

const fn reverse(line: [u8; 4]) -> [u8; 4] {
    [line[3], line[2], line[1], line[0]]
}

/// The row after a move toward cell 0 (`toward_high` false) or toward cell 3 (true), and the score.
const fn slide_packed(row: u16, toward_high: bool) -> (u16, u32) {
    let line = unpack_row(row);
    if toward_high {
        let (m, s) = slide_row_slow(reverse(line));
        (pack_row(reverse(m)), s)
    } else {
        let (m, s) = slide_row_slow(line);
        (pack_row(m), s)
    }
}

const fn build_rows(toward_high: bool) -> [u16; 65536] {
    let mut table = [0u16; 65536];
    let mut row = 0usize;
    while row < 65536 {
        table[row] = slide_packed(row as u16, toward_high).0;
        row += 1;
    }
    table
}

/// Spreads a 16-bit row into a column of a board: nibble `j` goes to row `j`, column 0.
pub const fn unpack_col(row: u16) -> u64 {
    let r = row as u64;
    (r & 0xf) | ((r & 0xf0) << 12) | ((r & 0xf00) << 24) | ((r & 0xf000) << 36)
}

const fn build_cols(toward_high: bool) -> [u64; 65536] {
    let mut table = [0u64; 65536];
    let mut row = 0usize;
    while row < 65536 {
        table[row] = unpack_col(slide_packed(row as u16, toward_high).0);
        row += 1;
    }
    table
}

const fn build_scores() -> [u16; 65536] {
    let mut table = [0u16; 65536];
    let mut row = 0usize;
    while row < 65536 {
        table[row] = (slide_packed(row as u16, false).1 / 4) as u16;
        row += 1;
    }
    table
}

/// Row after a move toward column 0 (left), for every 16-bit row.
pub static ROW_LEFT: [u16; 65536] = build_rows(false);
/// Row after a move toward column 3 (right), for every 16-bit row.
pub static ROW_RIGHT: [u16; 65536] = build_rows(true);
/// Both results of a column in one lookup, indexed by the column read as a row (row 0 in the
/// lowest nibble, [`super::column`]): the column after a move toward row 0 (up) spread
/// back into column 0 of a board (nibble 0 of each 16-bit row), and the column after a move
/// toward row 3 (down) spread likewise into nibble 2 (`<< 8`). Up and down together cost four
/// lookups, not eight, in one 512 KiB table instead of two (see `Board::for_each_shifted`).
pub static COL_BOTH: [u64; 65536] = build_cols_both(&COL_UP_ONLY, &COL_DOWN_ONLY);

// Each built apart: one const evaluation that slides all 131,072 lines takes too long for rustc.
// Used only to initialise COL_BOTH at compile time, so never copied at run time.
#[allow(clippy::large_const_arrays)]
const COL_UP_ONLY: [u64; 65536] = build_cols(false);
#[allow(clippy::large_const_arrays)]
const COL_DOWN_ONLY: [u64; 65536] = build_cols(true);

const fn build_cols_both(up: &[u64; 65536], down: &[u64; 65536]) -> [u64; 65536] {
    let mut table = [0u64; 65536];
    let mut i = 0usize;
    while i < 65536 {
        table[i] = up[i] | down[i] << 8;
        i += 1;
    }
    table
}
const fn build_both(left: &[u16; 65536], right: &[u16; 65536]) -> [u64; 65536] {
    let mut table = [0u64; 65536];
    let mut row = 0usize;
    while row < 65536 {
        table[row] = left[row] as u64 | (right[row] as u64) << 32;
        row += 1;
    }
    table
}

/// Both results of a row in one lookup: the row after a move toward column 0 (left) in bits
/// 0..16, toward column 3 (right) in bits 32..48 ([`ROW_LEFT`] and [`ROW_RIGHT`] side by side):
/// left and right together cost four lookups, not eight, and two rows' entries combine with one
/// shift (`e0 | e1 << 16` holds both rows' left and right results in place).
pub static ROW_BOTH: [u64; 65536] = build_both(&ROW_LEFT, &ROW_RIGHT);

/// Merge score of a line divided by 4 (every merge makes a tile of at least 4; four 16384 tiles
/// make 65536, one more than a `u16`). The same in both directions: both merge the same pairs
/// within each run of equal tiles.
pub static LINE_SCORE: [u16; 65536] = build_scores();

/// True when this row holds two 32768 tiles (exponent 15) that would merge in a left or right move,
/// i.e. when the row tables cannot express the result. The same pairs meet in both directions.
pub const fn row_overflows(row: u16) -> bool {
    let line = unpack_row(row);
    let mut prev = 0u8;
    let mut i = 0;
    while i < 4 {
        let e = line[i];
        if e != 0 {
            if e == 15 && prev == 15 {
                return true;
            }
            prev = e;
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_slide_hand_worked() {
        // The rules, in exponents: 2=1, 4=2, 8=3.
        assert_eq!(slide_row_slow([1, 1, 2, 2]), ([2, 3, 0, 0], 4 + 8));
        assert_eq!(slide_row_slow([1, 1, 1, 1]), ([2, 2, 0, 0], 8));
        assert_eq!(slide_row_slow([2, 1, 1, 0]), ([2, 2, 0, 0], 4));
        assert_eq!(slide_row_slow([1, 0, 1, 2]), ([2, 2, 0, 0], 4));
        assert_eq!(slide_row_slow([0, 0, 0, 3]), ([3, 0, 0, 0], 0));
        assert_eq!(slide_row_slow([1, 2, 3, 4]), ([1, 2, 3, 4], 0));
        assert_eq!(slide_row_slow([1, 1, 1, 0]), ([2, 1, 0, 0], 4));
        // 32768 + 32768 = 65536, 65536 + 65536 = 131072, exactly.
        assert_eq!(slide_row_slow([15, 15, 0, 0]), ([16, 0, 0, 0], 65536));
        assert_eq!(slide_row_slow([16, 0, 16, 0]), ([17, 0, 0, 0], 131072));
        // 131072 is the cap: two never merge.
        assert_eq!(slide_row_slow([17, 17, 0, 0]), ([17, 17, 0, 0], 0));
    }

    #[test]
    fn tables_match_slow_on_all_rows() {
        for row in 0..=u16::MAX {
            if row_overflows(row) {
                continue;
            }
            let i = row as usize;
            let line = unpack_row(row);
            let (left, ls) = slide_row_slow(line);
            assert_eq!(ROW_LEFT[i], pack_row(left), "left {row:#06x}");
            assert_eq!(
                COL_BOTH[i] & 0x000f_000f_000f_000f,
                unpack_col(pack_row(left)),
                "up {row:#06x}"
            );
            assert_eq!(LINE_SCORE[i] as u32 * 4, ls, "score {row:#06x}");
            let rev = [line[3], line[2], line[1], line[0]];
            let (r, rs) = slide_row_slow(rev);
            let right = [r[3], r[2], r[1], r[0]];
            assert_eq!(ROW_RIGHT[i], pack_row(right), "right {row:#06x}");
            assert_eq!(
                COL_BOTH[i] >> 8 & 0x000f_000f_000f_000f,
                unpack_col(pack_row(right)),
                "down {row:#06x}"
            );
            assert_eq!(rs, ls, "left and right score alike {row:#06x}");
            assert_eq!(
                ROW_BOTH[i],
                pack_row(left) as u64 | (pack_row(right) as u64) << 32,
                "both {row:#06x}"
            );
        }
    }

    #[test]
    fn unpack_col_places_nibbles_down_column_zero() {
        assert_eq!(unpack_col(0x4321), 0x0004_0003_0002_0001);
    }

    #[test]
    fn overflow_rows() {
        assert!(row_overflows(0x00ff));
        assert!(row_overflows(0xf0f0));
        assert!(row_overflows(0xf00f));
        assert!(!row_overflows(0xf01f));
        assert!(!row_overflows(0x000f));
        assert!(!row_overflows(0xeeee));
    }
}
