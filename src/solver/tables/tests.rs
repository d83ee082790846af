use super::build::build_table;
use super::*;
use std::collections::HashMap;

fn key(rows: [u8; 4], anchor: u8, goal: u8) -> TableKey {
    TableKey::new(Formation::new(rows).unwrap(), anchor, goal).unwrap()
}

#[test]
fn formations_anchors_and_sizes() {
    let f = Formation::new([4, 4, 0, 0]).unwrap();
    assert_eq!(f.free_cells(), (8..16).collect::<Vec<u8>>());
    assert_eq!(f.anchors(), vec![4, 5, 6, 7]);
    assert_eq!(f.distinct_anchors(), vec![4, 5], "7 and 6 mirror 4 and 5");
    let f = Formation::new([4, 3, 1, 0]).unwrap();
    assert_eq!(f.anchors(), vec![3, 5, 6, 8]);
    assert_eq!(f.distinct_anchors(), vec![3, 5, 6, 8]);
    let f = Formation::new([3, 3, 2, 0]).unwrap();
    assert_eq!(f.anchors(), vec![2, 6, 8, 9]);
    assert_eq!(
        f.distinct_anchors(),
        vec![2, 6],
        "8 and 9 transpose 2 and 6"
    );
    assert!(Formation::new([3, 4, 0, 0]).is_err());
    assert!(Formation::new([4, 4, 4, 4]).is_err());
    assert_eq!(key([4, 4, 0, 0], 4, 7).entries(), 8u64.pow(8));
}

/// Formation 4,4,4,2: the free cells are 14 and 15 (row 3, columns 2 and 3); the anchor is cell
/// 13 (row 3, column 1), holding a 4 (goal exponent 2). Worked out by hand, cells (14, 15):
/// - (4, 2) and (4, 4): left merges the 4 into the anchor: 1.
/// - (2, 4): no move but right (which would slide the block) changes anything: 0.
/// - (2, 2): left makes (4, .); its spawn in 15 is a 2 (→ (4, 2), 1) or a 4 (→ (4, 4), 1): 1.
/// - (., 2): left makes (2, .): a 2 in 15 (→ (2, 2), 1) 9 times in 10, a 4 (→ (2, 4), 0) once: 0.9.
///   Right and down slide the block; up changes nothing.
#[test]
fn a_two_cell_game_worked_out_by_hand() {
    let k = key([4, 4, 4, 2], 13, 2);
    let table = build_table(&k, &|_| {});
    let p = |c14: u64, c15: u64| table.probability(c14 + 3 * c15);
    assert_eq!(p(2, 1), 1.0);
    assert_eq!(p(2, 2), 1.0);
    assert_eq!(p(1, 2), 0.0);
    assert_eq!(p(1, 1), 1.0);
    assert!((p(0, 1) - 0.9).abs() < 1e-4, "{}", p(0, 1));
}

/// The value of position `raw` of `key`'s game by plain recursive expectimax over the engine's
/// moves, written without the table's index or layers: a move is allowed when every fixed cell
/// but the anchor keeps its tile and the anchor keeps the goal (success when it becomes goal+1).
fn brute_force(key: &TableKey, raw: u64, memo: &mut HashMap<u64, f64>) -> f64 {
    if let Some(&v) = memo.get(&raw) {
        return v;
    }
    let free = key.formation.free_cells();
    let mut best = 0.0f64;
    for m in Move::ALL {
        let Some(after) = Board::from_raw(raw).shifted(m) else {
            continue;
        };
        let a = after.raw();
        let fixed_moved = (0..16u8).any(|i| {
            key.formation.is_fixed(usize::from(i))
                && i != key.anchor
                && nibble(a, i) != nibble(raw, i)
        });
        let anchor = nibble(a, key.anchor);
        let value = if fixed_moved || (anchor != key.goal && anchor != key.goal + 1) {
            continue;
        } else if anchor == key.goal + 1 {
            1.0
        } else if free.iter().any(|&c| nibble(a, c) > key.goal) {
            0.0
        } else {
            let empty: Vec<u8> = free
                .iter()
                .copied()
                .filter(|&c| nibble(a, c) == 0)
                .collect();
            let mut total = 0.0;
            for &c in &empty {
                total += 0.9 * brute_force(key, a | 1 << (4 * c), memo)
                    + 0.1 * brute_force(key, a | 2 << (4 * c), memo);
            }
            total / empty.len() as f64
        };
        best = best.max(value);
    }
    memo.insert(raw, best);
    best
}

#[test]
fn every_entry_of_small_tables_matches_brute_force_expectimax() {
    for k in [
        key([4, 4, 4, 0], 9, 3),
        key([4, 4, 2, 0], 9, 3),
        key([4, 4, 2, 0], 6, 4),
    ] {
        let table = build_table(&k, &|_| {});
        let base = k.placeholder_raw();
        let mut memo = HashMap::new();
        let mut worst = 0.0f64;
        let mut some_between = 0;
        for index in 0..k.entries() {
            let raw = table.layout().position(index, base);
            let exact = brute_force(&k, raw, &mut memo);
            worst = worst.max((exact - f64::from(table.probability(index))).abs());
            if exact > 0.01 && exact < 0.99 {
                some_between += 1;
            }
        }
        // each value is rounded to 1/65535 and the rounding is carried up the layers
        assert!(worst < 1e-3, "{k}: off by {worst}");
        assert!(some_between > 10, "{k}: a game worth testing");
    }
}

#[test]
fn index_position_index_round_trips_over_every_entry() {
    let k = key([4, 4, 2, 0], 9, 3);
    let layout = Layout::new(k.clone());
    let base = k.placeholder_raw();
    for index in 0..k.entries() {
        let raw = layout.position(index, base);
        assert_eq!(raw & !free_mask(&k), base, "fixed cells untouched");
        assert_eq!(layout.index(raw), Some(index));
    }
    // a free tile above the goal has no index
    assert_eq!(layout.index(base | 4 << (4 * 15)), None);
}

fn free_mask(k: &TableKey) -> u64 {
    k.formation
        .free_cells()
        .iter()
        .fold(0, |m, &c| m | 0xf << (4 * c))
}

fn board(rows: [[u32; 4]; 4]) -> Board {
    Board::from_values(rows).unwrap()
}

#[test]
fn a_covered_board_is_found_through_its_symmetry_and_gets_the_tables_values() {
    // 4,4 formation, anchor (1,0) holding 8 (goal 3), the rest of the block above 8
    let k = key([4, 4, 0, 0], 4, 3);
    let tables = EndgameTables::new(vec![build_table(&k, &|_| {})]);
    let b = board([
        [2048, 1024, 512, 256],
        [8, 16, 32, 64],
        [4, 2, 0, 0],
        [0, 0, 0, 2],
    ]);
    let covers = tables.covers(b);
    assert_eq!(covers.len(), 1);
    assert_eq!(covers[0].symmetry, 0);
    // the same board upside down is covered through a symmetry that flips the rows
    let flipped = Board::from_raw(symmetric_raw(b.raw(), 2));
    let c = tables.covers(flipped);
    assert_eq!(c.len(), 1);
    assert_eq!(symmetric_raw(flipped.raw(), c[0].symmetry), b.raw());
    // each move's value is the table's chance of its afterstate; up slides nothing of the block
    let values = tables.move_values(b).unwrap();
    let table = &tables.tables()[0];
    for m in Move::ALL {
        let expected = b
            .shifted(m)
            .map(|a| match table.afterstate_value(b.raw(), a.raw()) {
                Outcome::Chance(p) => p,
                Outcome::Merged => 1.0,
                Outcome::Disturbs => 0.0,
            });
        assert_eq!(values[m.index()], expected, "{m:?}");
    }
    assert_eq!(
        values[Move::Down.index()],
        Some(0.0),
        "down slides the block"
    );
    assert!(values[Move::Left.index()].unwrap() > 0.0);
    // not covered: a free tile above the anchor's 8, equal fixed neighbours, a hole in the block
    let big_free = board([
        [2048, 1024, 512, 256],
        [8, 16, 32, 64],
        [16, 0, 0, 0],
        [0; 4],
    ]);
    assert!(tables.covers(big_free).is_empty());
    let equal = board([
        [2048, 1024, 512, 512],
        [8, 16, 32, 64],
        [2, 0, 0, 0],
        [0; 4],
    ]);
    assert!(tables.covers(equal).is_empty());
    let hole = board([[2048, 1024, 512, 0], [8, 16, 32, 64], [2, 0, 0, 0], [0; 4]]);
    assert!(tables.covers(hole).is_empty());
}

#[test]
fn merging_the_goal_into_the_anchor_is_a_certain_success() {
    let k = key([4, 4, 0, 0], 4, 3);
    let tables = EndgameTables::new(vec![build_table(&k, &|_| {})]);
    // an 8 right under the anchor's 8: up merges them
    let b = board([
        [2048, 1024, 512, 256],
        [8, 16, 32, 64],
        [8, 2, 0, 0],
        [0; 4],
    ]);
    let values = tables.move_values(b).unwrap();
    assert_eq!(values[Move::Up.index()], Some(1.0));
}

#[test]
fn cells_at_least_marks_each_cell_at_or_above_the_threshold() {
    // cell i holds exponent i: the cells from `low` on are marked, at bit 4·i
    let raw = 0xfedc_ba98_7654_3210u64;
    for low in 1..=15u8 {
        let want = (low..16).fold(0u64, |m, i| m | 1 << (4 * i));
        assert_eq!(cells_at_least(raw, low), want, "low {low}");
    }
    // a 2048 (11) among small tiles, threshold 64 (6): only its cell 9
    let b = board([[2, 4, 8, 16], [32, 2, 4, 8], [0, 2048, 2, 0], [0; 4]]);
    assert_eq!(cells_at_least(b.raw(), 6), 1 << (4 * 9));
}

/// The module doc's definition of a cover, cell by cell: through symmetry `s` every fixed cell
/// holds a tile, no two fixed neighbours are equal, the anchor holds 2^g, every other fixed tile
/// is above it and no free tile is.
fn covered_by_definition(table: &Table, raw: u64) -> bool {
    let key = table.key();
    let f = key.formation;
    (0..16u8).all(|i| {
        let e = nibble(raw, i);
        if !f.is_fixed(usize::from(i)) {
            return e <= key.goal;
        }
        let still = neighbours(i)
            .filter(|&n| f.is_fixed(usize::from(n)))
            .all(|n| nibble(raw, n) != e);
        let ordered = if i == key.anchor {
            e == key.goal
        } else {
            e > key.goal
        };
        e != 0 && still && ordered
    })
}

/// Tables of every formation, anchor and goal 2 to 4 (values never read by `covers`), made once.
fn every_small_key_table() -> &'static EndgameTables {
    static TABLES: std::sync::OnceLock<EndgameTables> = std::sync::OnceLock::new();
    TABLES.get_or_init(every_small_key_table_uncached)
}

fn every_small_key_table_uncached() -> EndgameTables {
    let mut tables = Vec::new();
    for formation in FORMATIONS {
        for anchor in formation.anchors() {
            for goal in 2..=4 {
                let k = TableKey::new(formation, anchor, goal).unwrap();
                tables.push(Table::new(k.clone(), vec![0; k.entries() as usize]).unwrap());
            }
        }
    }
    EndgameTables::new(tables)
}

mod cover_property {
    use super::*;
    use proptest::prelude::*;

    /// A board built around a formation seen through a symmetry: an anchor holding 2^g (g 2..=4),
    /// the other fixed cells 2^(g+1)..=2^(g+6), the free cells at most 2^g; then, in about half
    /// the boards, one cell set to any exponent 0..=9 (a hole, equal neighbours, a free tile too
    /// large, or no change), so that many boards are covered and many are near misses.
    fn near_block() -> impl Strategy<Value = Board> {
        (
            (0..FORMATIONS.len(), 0..SYMMETRIES, 0usize..8, 2u8..=4),
            proptest::array::uniform16(1u8..=6),
            proptest::array::uniform16(0u8..=4),
            (0usize..32, 0u8..=9),
        )
            .prop_map(|((f, s, a, goal), above, free, (flaw_cell, flaw))| {
                let formation = FORMATIONS[f];
                let anchors = formation.anchors();
                let anchor = anchors[a % anchors.len()];
                let mut cells = [0u8; 16];
                for (i, e) in cells.iter_mut().enumerate() {
                    *e = if i == usize::from(anchor) {
                        goal
                    } else if formation.is_fixed(i) {
                        goal + above[i]
                    } else {
                        free[i].min(goal)
                    };
                }
                if let Some(e) = cells.get_mut(flaw_cell) {
                    *e = flaw;
                }
                let raw = (0..16).fold(0u64, |raw, i| raw | u64::from(cells[i]) << (4 * i));
                // `raw` is in the formation's orientation; the board is it seen back through s
                let board_raw = (0..SYMMETRIES)
                    .map(|t| symmetric_raw(raw, t))
                    .find(|&b| symmetric_raw(b, s) == raw)
                    .unwrap();
                Board::from_raw(board_raw)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, .. ProptestConfig::default() })]
        #[test]
        fn covers_are_exactly_the_definitions_covers(board in near_block()) {
            let tables = every_small_key_table();
            let mut found: Vec<(usize, TableKey)> = tables
                .covers(board)
                .iter()
                .map(|c| (c.symmetry, c.table.key().clone()))
                .collect();
            let mut expected = Vec::new();
            for s in 0..SYMMETRIES {
                let raw = symmetric_raw(board.raw(), s);
                for t in tables.tables() {
                    if covered_by_definition(t, raw) {
                        expected.push((s, t.key().clone()));
                    }
                }
            }
            let order = |v: &mut Vec<(usize, TableKey)>| {
                v.sort_by_key(|(s, k)| (*s, k.formation.rows, k.anchor, k.goal));
            };
            order(&mut found);
            order(&mut expected);
            prop_assert_eq!(found, expected);
        }
    }
}

mod files {
    use super::*;
    use crate::solver::tables::file::{self, TableFileError, HEADER_LEN};
    use std::fs;

    fn small_table() -> Table {
        build_table(&key([4, 4, 2, 0], 9, 3), &|_| {})
    }

    #[test]
    fn save_then_load_gives_identical_entries() {
        let dir = tempfile::tempdir().unwrap();
        let table = small_table();
        let path = file::save(&table, 1234, dir.path()).unwrap();
        assert_eq!(path, dir.path().join("4-4-2.a9.g3.tbl"));
        let (loaded, header) = file::load(&path).unwrap();
        assert_eq!(loaded, table);
        assert_eq!(header.build_ms, 1234);
        assert_eq!(header.entries, 4096);
        let all = file::load_dir(dir.path()).unwrap();
        assert_eq!(all.tables(), std::slice::from_ref(&table));
        // nothing but the table is left in the folder
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn truncated_corrupt_and_other_version_files_are_refused_with_their_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = file::save(&small_table(), 1, dir.path()).unwrap();
        let good = fs::read(&path).unwrap();
        let name = path.display().to_string();

        fs::write(&path, &good[..good.len() - 10]).unwrap();
        let e = file::load(&path).unwrap_err();
        assert!(matches!(e, TableFileError::Size { .. }), "{e}");
        assert!(e.to_string().contains(&name) && e.to_string().contains("tables build"));

        let mut corrupt = good.clone();
        corrupt[HEADER_LEN as usize + 100] ^= 0x40;
        fs::write(&path, &corrupt).unwrap();
        let e = file::load(&path).unwrap_err();
        assert!(matches!(e, TableFileError::Corrupt { .. }), "{e}");
        assert!(e.to_string().contains(&name));

        let mut other = good.clone();
        other[8] = 2;
        fs::write(&path, &other).unwrap();
        let e = file::load(&path).unwrap_err();
        assert!(e.to_string().contains("format version 2"), "{e}");
        assert!(e.to_string().contains(&name));

        fs::write(
            &path,
            b"not a table at all, but long enough to have a header",
        )
        .unwrap();
        let e = file::load(&path).unwrap_err();
        assert!(e.to_string().contains("not a bot2048 table file"), "{e}");
        // load_dir names the bad file too
        let e = file::load_dir(dir.path()).unwrap_err();
        assert!(e.to_string().contains(&name), "{e}");
    }
}
