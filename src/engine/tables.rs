//! Row tables for the bitboard, and the slow, obvious functions they are built from.
//!
//! A row is 16 bits: four 4-bit log2 exponents, cell 0 (the leftmost column, or the top row of a
//! transposed board) in the lowest nibble. [`slide_row_slow`] slides one row of exponents toward
//! index 0 the way 2048 does; [`LEFT`] and [`RIGHT`] hold its result for every one of the 65,536
//! rows, computed at compile time (a `const fn`, no build script, no `static mut`).
//!
//! Table entry layout (`u32`): bits 0..16 = the row after the move, bits 16..32 = the merge score
//! of that row divided by 4 (every merge makes a tile of at least 4, and a row of four 16384 tiles
//! scores 65536, one more than a `u16` holds, so the score is stored divided by 4).
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

const fn build(toward_high: bool) -> [u32; 65536] {
    let mut table = [0u32; 65536];
    let mut row = 0usize;
    while row < 65536 {
        let line = unpack_row(row as u16);
        let (moved, score) = if toward_high {
            let (m, s) = slide_row_slow(reverse(line));
            (reverse(m), s)
        } else {
            slide_row_slow(line)
        };
        table[row] = pack_row(moved) as u32 | ((score / 4) << 16);
        row += 1;
    }
    table
}

/// Row table for a move toward cell 0 (left on rows, up on transposed rows): entry layout above.
pub static LEFT: [u32; 65536] = build(false);
/// Row table for a move toward cell 3 (right on rows, down on transposed rows): entry layout above.
pub static RIGHT: [u32; 65536] = build(true);

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
            let line = unpack_row(row);
            let (left, ls) = slide_row_slow(line);
            assert_eq!(
                LEFT[row as usize] & 0xffff,
                pack_row(left) as u32,
                "left {row:#06x}"
            );
            assert_eq!(LEFT[row as usize] >> 16, ls / 4, "left score {row:#06x}");
            let rev = [line[3], line[2], line[1], line[0]];
            let (r, rs) = slide_row_slow(rev);
            let right = [r[3], r[2], r[1], r[0]];
            assert_eq!(
                RIGHT[row as usize] & 0xffff,
                pack_row(right) as u32,
                "right {row:#06x}"
            );
            assert_eq!(RIGHT[row as usize] >> 16, rs / 4, "right score {row:#06x}");
        }
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
