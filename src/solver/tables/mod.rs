//! Endgame tables: the exact chance of building the next tile of the chain, computed once by
//! dynamic programming over the small game of the free cells, and looked up during play.
//!
//! Idea (macroxue/2048-ai's README, "How it works"; this design and code are our own): late in a
//! strong game the large tiles sit still in a block at one corner, and the play happens in the
//! cells beside them. When the block's smallest tile (the *anchor*, value 2^g) needs a partner, the
//! game of the free cells is small enough to solve exactly, once: the probability of making a 2^g
//! tile and merging it into the anchor, moving only the free cells, under optimal play.
//!
//! - A [`Formation`] is the block's shape: a Young diagram in the top-left corner (row `r` holds
//!   `rows[r]` fixed cells from column 0, rows never longer than the row above). Every other cell
//!   is free. In such a block no fixed tile can move without the move emptying a fixed cell (see
//!   [`build`]), so "the fixed cells still hold their tiles" tells a move that keeps the block.
//! - A [`Table`] is one formation, one anchor cell (a fixed cell beside a free one) and one goal
//!   exponent g: for every filling of the free cells with exponents 0..=g (0 = empty), the
//!   probability, as a `u16` of 65,535ths, that optimal play merges a 2^g into the anchor before
//!   the free cells lock up or a move must disturb the block. Index: the free cells in reading
//!   order are the digits of a number in base g + 1 ([`Layout::index`]).
//! - A board is *covered* ([`EndgameTables::covers`]) when one of its 8 symmetries fits a
//!   formation: the fixed cells all hold tiles, the anchor holds 2^g, every other fixed tile is
//!   above 2^g and differs from its fixed neighbours, and no free tile is above 2^g.
//!
//! Tables are built by [`build::build_table`] (`bot2048 tables build`) and kept in the user's
//! cache folder ([`mod@file`]).
use crate::engine::{Board, Move, SpawnRule};
use std::collections::HashMap;
use std::fmt;

pub mod build;
pub mod eval;
pub mod file;
pub mod middle;
pub mod middle_file;

pub use eval::{load_shared, TableChoice, TableEval};

/// The chance that a spawn is a 2 (exponent 1), else a 4: the classic game's rule, the engine's
/// own [`SpawnRule::Classic`].
const TWO_PROBABILITY: f32 = 1.0 - SpawnRule::Classic.four_probability();

/// The largest goal exponent a table may have (2^11 = 2048): a free cell's digit is 0..=g and a
/// table's index must fit a `u64`.
pub const MAX_GOAL: u8 = 11;

/// The stored value of a probability of 1 (values are 65,535ths).
pub const ONE: u16 = u16::MAX;

/// The shape of the block of large tiles: `rows[r]` fixed cells from column 0 in row `r`, in the
/// top-left corner of the 4×4 board (other corners and edges through the board's 8 symmetries).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Formation {
    /// Fixed cells per row, non-increasing from row 0 (a Young diagram).
    pub rows: [u8; 4],
}

/// The formations tables are built for: the block shapes that heuristic expectimax makes once a
/// 64 or more has a partner to find. Counted over every move of 24 games at depth 3, a formation
/// fits (with a goal from 64) in: 4-4 0.02 %, 4-3-1 0.09 %, 3-3-2 0.08 % (eight free cells);
/// 4-3 1.5 %, 3-3-1 1.75 % (nine); 4-2 5.5 %, 3-3 6.1 % (ten: too large to build here).
pub const FORMATIONS: [Formation; 5] = [
    Formation { rows: [4, 4, 0, 0] },
    Formation { rows: [4, 3, 1, 0] },
    Formation { rows: [3, 3, 2, 0] },
    Formation { rows: [4, 3, 0, 0] },
    Formation { rows: [3, 3, 1, 0] },
];

impl Formation {
    /// The formation with these row lengths.
    ///
    /// # Errors
    /// A message when the rows are not a Young diagram (each at most 4 and at most the row above)
    /// or leave no free cell.
    pub fn new(rows: [u8; 4]) -> Result<Formation, String> {
        let ok = rows[0] <= 4 && rows.windows(2).all(|w| w[1] <= w[0]);
        let fixed: u32 = rows.iter().map(|&r| u32::from(r)).sum();
        if !ok || fixed == 16 || fixed == 0 {
            return Err(format!(
                "rows {rows:?} are not a block in the top-left corner with free cells beside it"
            ));
        }
        Ok(Formation { rows })
    }

    /// True when cell `i` (row-major, 0..16) is fixed.
    pub fn is_fixed(self, i: usize) -> bool {
        (i % 4) < usize::from(self.rows[i / 4])
    }

    /// The free cells in reading order.
    pub fn free_cells(self) -> Vec<u8> {
        (0..16u8)
            .filter(|&i| !self.is_fixed(usize::from(i)))
            .collect()
    }

    /// The fixed cells beside at least one free cell: where the block's smallest tile can take a
    /// partner from the free cells.
    pub fn anchors(self) -> Vec<u8> {
        (0..16u8)
            .filter(|&i| self.is_fixed(usize::from(i)))
            .filter(|&i| neighbours(i).any(|n| !self.is_fixed(usize::from(n))))
            .collect()
    }

    /// The anchors no symmetry of the formation maps onto an earlier one: a board fitting the
    /// formation with its anchor at a left-out cell fits it, seen through that symmetry, at a
    /// kept one, so tables are built for these alone.
    pub fn distinct_anchors(self) -> Vec<u8> {
        let own: Vec<usize> = (0..SYMMETRIES)
            .filter(|&s| {
                (0..16u8).all(|i| {
                    self.is_fixed(usize::from(symmetric_cell(i, s)))
                        == self.is_fixed(usize::from(i))
                })
            })
            .collect();
        let all = self.anchors();
        all.iter()
            .copied()
            .filter(|&a| own.iter().all(|&s| symmetric_cell(a, s) >= a))
            .collect()
    }

    /// The name used in file names and messages: the row lengths, e.g. `4-3-1`.
    pub fn name(self) -> String {
        let rows: Vec<String> = self
            .rows
            .iter()
            .filter(|&&r| r > 0)
            .map(|r| r.to_string())
            .collect();
        rows.join("-")
    }
}

impl fmt::Display for Formation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// The smallest goal exponent of the tables built (2^6 = 64). With smaller goals the block is
/// made of middling tiles (a 16 or a 32 among them) that the table then forbids to move, and play
/// got weaker: `sim --depth 3 --games 20 --seed 7`, 8192 reached in 5 % of games with goals from 8
/// against 70 % for the heuristic alone; with goals from 64, 70 % and 16384 in 20 % against 5 %.
pub const MIN_TABLE_GOAL: u8 = 6;

/// The sets of tables `bot2048 tables build` makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TableSet {
    /// The eight-free-cell formations, goals 64 to 256.
    Small,
    /// Goals up to 512, and the nine-free-cell formations (goals 64 and 128).
    Full,
}

impl TableSet {
    /// The largest goal exponent of the set's tables of `formation`, `None` when the set has none
    /// of it: eight free cells, 2^8 = 256 in the small set and 2^9 = 512 in the full one; nine
    /// free cells, 2^7 = 128 in the full set only (measured at depth 3 over 100 games, the
    /// nine-cell tables made play no stronger: 16384 in 4 % with them, 11 % without, 7 % for the
    /// heuristic alone).
    pub fn top_goal(self, formation: Formation) -> Option<u8> {
        match (self, formation.free_cells().len() <= 8) {
            (TableSet::Small, true) => Some(8),
            (TableSet::Small, false) => None,
            (TableSet::Full, true) => Some(9),
            (TableSet::Full, false) => Some(7),
        }
    }

    /// Every table of the set, smallest goal first.
    pub fn keys(self) -> Vec<TableKey> {
        let mut keys = Vec::new();
        for goal in MIN_TABLE_GOAL..=MAX_GOAL {
            let formations = FORMATIONS
                .into_iter()
                .filter(|&f| self.top_goal(f).is_some_and(|top| goal <= top));
            for formation in formations {
                for anchor in formation.distinct_anchors() {
                    keys.push(TableKey {
                        formation,
                        anchor,
                        goal,
                    });
                }
            }
        }
        keys
    }
}

/// What building `set` costs, for messages: tables, entries, disk.
pub fn build_cost(set: TableSet) -> String {
    let keys = set.keys();
    let entries: u64 = keys.iter().map(TableKey::entries).sum();
    format!(
        "`--set {}`: {} tables, {:.2} GB on disk and in memory",
        match set {
            TableSet::Small => "small",
            TableSet::Full => "full",
        },
        keys.len(),
        (2 * entries) as f64 / 1e9
    )
}

/// The cells beside cell `i` (up, down, left, right; row-major indices).
pub fn neighbours(i: u8) -> impl Iterator<Item = u8> {
    let (r, c) = (i / 4, i % 4);
    [
        (r > 0).then(|| i - 4),
        (r < 3).then(|| i + 4),
        (c > 0).then(|| i - 1),
        (c < 3).then(|| i + 1),
    ]
    .into_iter()
    .flatten()
}

/// The nibble of cell `i` of a raw board.
#[inline(always)]
pub fn nibble(raw: u64, i: u8) -> u8 {
    ((raw >> (4 * i)) & 0xf) as u8
}

/// What a table holds for one formation, anchor and goal (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableKey {
    /// The block's shape.
    pub formation: Formation,
    /// The anchor cell (row-major index in the formation's orientation).
    pub anchor: u8,
    /// The goal exponent g: the anchor holds 2^g and the table's success is a 2^g merged into it.
    pub goal: u8,
}

impl TableKey {
    /// The key, checked.
    ///
    /// # Errors
    /// A message when `anchor` is not one of the formation's anchors or `goal` is not in
    /// 2..=[`MAX_GOAL`].
    pub fn new(formation: Formation, anchor: u8, goal: u8) -> Result<TableKey, String> {
        if !formation.anchors().contains(&anchor) {
            return Err(format!(
                "cell {anchor} is not an anchor of formation {formation}"
            ));
        }
        if !(2..=MAX_GOAL).contains(&goal) {
            return Err(format!("goal exponent {goal} is not in 2..={MAX_GOAL}"));
        }
        Ok(TableKey {
            formation,
            anchor,
            goal,
        })
    }

    /// The number of entries: (g + 1)^(free cells).
    pub fn entries(&self) -> u64 {
        u64::from(self.goal + 1).pow(self.formation.free_cells().len() as u32)
    }

    /// The file name of this table: `4-3-1.a8.g7.tbl`.
    pub fn file_name(&self) -> String {
        format!("{}.a{}.g{}.tbl", self.formation, self.anchor, self.goal)
    }

    /// The raw board the table's positions are embedded in: each fixed cell holds a placeholder
    /// exponent, 13 and 14 in a checkerboard (no two fixed neighbours equal, none mergeable with a
    /// free tile, none 15, so moves stay on the bitboard's fast path), the anchor holds g, and
    /// every free cell is empty.
    pub fn placeholder_raw(&self) -> u64 {
        (0..16u8)
            .filter(|&i| self.formation.is_fixed(usize::from(i)))
            .map(|i| {
                let e = if i == self.anchor {
                    self.goal
                } else if (i / 4 + i % 4) % 2 == 0 {
                    14
                } else {
                    13
                };
                u64::from(e) << (4 * i)
            })
            .sum()
    }
}

impl fmt::Display for TableKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "formation {}, anchor cell {} (row {}, column {}), goal {}",
            self.formation,
            self.anchor,
            self.anchor / 4,
            self.anchor % 4,
            1u32 << self.goal
        )
    }
}

/// Where a table's digits are: the free cells and their weights, and the fixed cells a move must
/// leave alone. Shared by a loaded [`Table`] and the builder ([`build`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    key: TableKey,
    /// The free cells in reading order.
    free: Vec<u8>,
    /// The fixed cells but the anchor, as a nibble mask of a raw board.
    others_mask: u64,
    /// Each free cell's weight in the index: (g + 1)^k for the k-th free cell.
    weights: Vec<u64>,
}

/// How a move of a covered board turns out under a table ([`Layout::outcome`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// The move moves a fixed tile: outside the table's game.
    Disturbs,
    /// The move merges a 2^g into the anchor: probability 1.
    Merged,
    /// Probability of success from the afterstate (its spawns averaged).
    Chance(f32),
}

impl Layout {
    /// The layout of `key`'s table.
    pub fn new(key: TableKey) -> Layout {
        let free = key.formation.free_cells();
        let radix = u64::from(key.goal) + 1;
        let weights = (0..free.len() as u32).map(|k| radix.pow(k)).collect();
        let others_mask = (0..16u8)
            .filter(|&i| key.formation.is_fixed(usize::from(i)) && i != key.anchor)
            .fold(0u64, |m, i| m | 0xf << (4 * i));
        Layout {
            key,
            free,
            others_mask,
            weights,
        }
    }

    /// The table's key.
    pub fn key(&self) -> &TableKey {
        &self.key
    }

    /// The index of the free cells of `raw` (a raw board in the formation's orientation), or
    /// `None` when a free cell holds more than 2^g.
    #[inline]
    pub fn index(&self, raw: u64) -> Option<u64> {
        let mut index = 0;
        for (&cell, &w) in self.free.iter().zip(&self.weights) {
            let e = nibble(raw, cell);
            if e > self.key.goal {
                return None;
            }
            index += u64::from(e) * w;
        }
        Some(index)
    }

    /// The free cells' exponents of entry `index`, placed on `base` (a raw board whose free cells
    /// are empty).
    pub fn position(&self, index: u64, base: u64) -> u64 {
        let radix = u64::from(self.key.goal) + 1;
        let mut rest = index;
        let mut raw = base;
        for &cell in &self.free {
            raw |= (rest % radix) << (4 * cell);
            rest /= radix;
        }
        raw
    }

    /// What a move from `before` to `after` (raw boards in the formation's orientation, `before`
    /// in the table's game) comes to: a disturbed block, the goal merged into the anchor, or the
    /// chance of success after the spawn, averaged over the empty free cells (a 2 with
    /// probability 0.9, a 4 with 0.1), each position's value (65,535ths) read by `value`.
    #[inline]
    pub fn outcome(&self, before: u64, after: u64, value: impl Fn(u64) -> u16) -> Outcome {
        if (before ^ after) & self.others_mask != 0 {
            return Outcome::Disturbs;
        }
        let anchor = nibble(after, self.key.anchor);
        if anchor == self.key.goal + 1 {
            return Outcome::Merged;
        }
        if anchor != self.key.goal {
            return Outcome::Disturbs;
        }
        let Some(index) = self.index(after) else {
            return Outcome::Chance(0.0);
        };
        let (mut total, mut empty) = (0.0f32, 0u32);
        for (&cell, &w) in self.free.iter().zip(&self.weights) {
            if nibble(after, cell) == 0 {
                empty += 1;
                total += TWO_PROBABILITY * f32::from(value(index + w))
                    + (1.0 - TWO_PROBABILITY) * f32::from(value(index + 2 * w));
            }
        }
        Outcome::Chance(if empty == 0 {
            0.0
        } else {
            total / (empty as f32 * f32::from(ONE))
        })
    }
}

/// One endgame table: its layout and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    layout: Layout,
    /// One value per index, in 65,535ths of a probability.
    values: Vec<u16>,
}

impl Table {
    /// A table of `key` with `values` (one per index; see [`TableKey::entries`]).
    ///
    /// # Errors
    /// A message when the number of values is not the key's entry count.
    pub fn new(key: TableKey, values: Vec<u16>) -> Result<Table, String> {
        if values.len() as u64 != key.entries() {
            return Err(format!(
                "{} entries for a table of {} ({key})",
                values.len(),
                key.entries()
            ));
        }
        Ok(Table {
            layout: Layout::new(key),
            values,
        })
    }

    /// The table's key.
    pub fn key(&self) -> &TableKey {
        &self.layout.key
    }

    /// The table's layout (index and moves).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Every value, in index order (65,535ths).
    pub fn values(&self) -> &[u16] {
        &self.values
    }

    /// The probability stored at `index`, 0..=1.
    #[inline]
    pub fn probability(&self, index: u64) -> f32 {
        f32::from(self.values[index as usize]) / f32::from(ONE)
    }

    /// [`Layout::outcome`] of a move from `before` to `after`, with this table's values.
    #[inline]
    pub fn afterstate_value(&self, before: u64, after: u64) -> Outcome {
        self.layout
            .outcome(before, after, |i| self.values[i as usize])
    }
}

/// The 8 symmetries of the square, as maps of cell indices: symmetry `s` sends cell (r, c) to
/// the cell of [`symmetric_cell`].
pub const SYMMETRIES: usize = 8;

/// Where symmetry `s` (0..8) sends cell `i`: bit 0 mirrors the columns, bit 1 the rows, bit 2
/// then transposes.
pub fn symmetric_cell(i: u8, s: usize) -> u8 {
    let (mut r, mut c) = (i / 4, i % 4);
    if s & 1 != 0 {
        c = 3 - c;
    }
    if s & 2 != 0 {
        r = 3 - r;
    }
    if s & 4 != 0 {
        std::mem::swap(&mut r, &mut c);
    }
    4 * r + c
}

/// The board `b` seen through symmetry `s`: cell `i` of `b` at [`symmetric_cell`]`(i, s)`.
/// Exact nibbles only (boards with a tile beyond 32768 are never covered).
pub fn symmetric_raw(raw: u64, s: usize) -> u64 {
    (0..16u8).fold(0, |out, i| {
        out | u64::from(nibble(raw, i)) << (4 * symmetric_cell(i, s))
    })
}

/// A board covered by a table: which table, and the symmetry that puts the board in the
/// table's orientation.
#[derive(Clone, Copy, Debug)]
pub struct Cover<'a> {
    /// The table.
    pub table: &'a Table,
    /// The symmetry (see [`symmetric_cell`]).
    pub symmetry: usize,
}

/// One formation seen through one symmetry: the cells of the board its fixed cells fall on.
#[derive(Clone, Copy, Debug)]
struct Placement {
    symmetry: usize,
    /// The formation's index in [`EndgameTables`]' formations.
    formation: usize,
    /// Bit 4·`i` set when board cell `i` is a fixed cell of the formation under `symmetry` (the
    /// form of [`cells_at_least`]).
    fixed_on_board: u64,
}

/// Every table loaded, found by key.
#[derive(Debug, Default)]
pub struct EndgameTables {
    tables: Vec<Table>,
    by_key: HashMap<TableKey, usize>,
    /// The formations of the tables, each once.
    formations: Vec<Formation>,
    /// Each formation's anchors (as [`Formation::anchors`]), at the formation's index.
    anchors: Vec<Vec<u8>>,
    /// Each formation's tables by anchor cell and goal exponent: `slots[f][anchor][goal]` is the
    /// index in `tables` of the table of formation `f`, or `None`.
    slots: Vec<[[Option<u32>; 16]; 16]>,
    /// Every (symmetry, formation) pair with the formation's fixed cells seen on the board: a
    /// board whose tiles of 2^`lowest_goal` or more miss one of those cells cannot fit it there.
    placements: Vec<Placement>,
    /// The fewest fixed cells of any loaded formation, and the lowest goal exponent of any loaded
    /// table: a board with fewer tiles of 2^`lowest_goal` or more than `fewest_fixed` fits none
    /// (a quick refusal before the 8 symmetries are tried).
    fewest_fixed: u32,
    lowest_goal: u8,
}

impl EndgameTables {
    /// A set of tables (a later table of the same key replaces an earlier one).
    pub fn new(tables: Vec<Table>) -> EndgameTables {
        let mut set = EndgameTables::default();
        for t in tables {
            set.insert(t);
        }
        set
    }

    /// Adds `table`, replacing one of the same key.
    pub fn insert(&mut self, table: Table) {
        match self.by_key.get(table.key()) {
            Some(&i) => self.tables[i] = table,
            None => {
                let formation = table.key().formation;
                let f = self.formation_index(formation);
                let key = table.key();
                // a goal beyond a nibble's 15 fits no board: no slot
                let slot = self.slots[f]
                    .get_mut(usize::from(key.anchor))
                    .and_then(|goals| goals.get_mut(usize::from(key.goal)));
                if let Some(slot) = slot {
                    *slot = Some(self.tables.len() as u32);
                }
                let fixed = formation.rows.iter().map(|&r| u32::from(r)).sum();
                let first = self.tables.is_empty();
                self.fewest_fixed = if first {
                    fixed
                } else {
                    self.fewest_fixed.min(fixed)
                };
                let goal = table.key().goal;
                self.lowest_goal = if first {
                    goal
                } else {
                    self.lowest_goal.min(goal)
                };
                self.by_key.insert(table.key().clone(), self.tables.len());
                self.tables.push(table);
            }
        }
    }

    /// The index of `formation` in `formations`, added (with its anchors, empty slots and
    /// placements) when new.
    fn formation_index(&mut self, formation: Formation) -> usize {
        if let Some(f) = self.formations.iter().position(|&x| x == formation) {
            return f;
        }
        let f = self.formations.len();
        self.formations.push(formation);
        self.anchors.push(formation.anchors());
        self.slots.push([[None; 16]; 16]);
        for symmetry in 0..SYMMETRIES {
            let fixed_on_board = (0..16u8)
                .filter(|&i| formation.is_fixed(usize::from(symmetric_cell(i, symmetry))))
                .fold(0u64, |mask, i| mask | 1 << (4 * i));
            self.placements.push(Placement {
                symmetry,
                formation: f,
                fixed_on_board,
            });
        }
        self.placements.sort_by_key(|p| (p.symmetry, p.formation));
        f
    }

    /// The tables, in the order loaded.
    pub fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// True when no table is loaded.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// Total entries of every table.
    pub fn entries(&self) -> u64 {
        self.tables.iter().map(|t| t.values.len() as u64).sum()
    }

    /// The covers of `board`: every (symmetry, table) under which the board fits a formation with
    /// its anchor's value as the goal (see the module doc). Boards with a tile beyond 32768 have
    /// none.
    pub fn covers(&self, board: Board) -> Vec<Cover<'_>> {
        let mut found = Vec::new();
        if self.tables.is_empty() || board.has_big_tile() {
            return found;
        }
        let raw = board.raw();
        let large = cells_at_least(raw, self.lowest_goal);
        if large.count_ones() < self.fewest_fixed {
            return found;
        }
        let mut seen = None::<(usize, u64)>;
        for placement in &self.placements {
            if placement.fixed_on_board & !large != 0 {
                continue;
            }
            let s = placement.symmetry;
            let raw = match seen {
                Some((symmetry, raw)) if symmetry == s => raw,
                _ => symmetric_raw(raw, s),
            };
            seen = Some((s, raw));
            let formation = self.formations[placement.formation];
            if !block_is_still(formation, raw) {
                continue;
            }
            let slots = &self.slots[placement.formation];
            for &anchor in &self.anchors[placement.formation] {
                let goal = nibble(raw, anchor);
                let Some(t) = slots[usize::from(anchor)][usize::from(goal)] else {
                    continue;
                };
                let table = &self.tables[t as usize];
                if fits(table, raw) {
                    found.push(Cover { table, symmetry: s });
                }
            }
        }
        found
    }

    /// Each legal move's probability of success when a table covers `board` and keeps the block
    /// for at least one move: `values[m.index()]` is `Some(p)` for a legal move (0 for a move
    /// that disturbs the block), `None` for an illegal one. Of several covers, the one with the
    /// best move. `None` when no table covers the board or every move disturbs the block.
    pub fn move_values(&self, board: Board) -> Option<[Option<f32>; 4]> {
        let mut best: Option<([Option<f32>; 4], f32)> = None;
        for cover in self.covers(board) {
            let before = symmetric_raw(board.raw(), cover.symmetry);
            let mut values = [None; 4];
            let mut top = None::<f32>;
            for m in Move::ALL {
                let Some(after) = board.shifted(m) else {
                    continue;
                };
                let after = symmetric_raw(after.raw(), cover.symmetry);
                let p = match cover.table.afterstate_value(before, after) {
                    Outcome::Disturbs => 0.0,
                    Outcome::Merged => {
                        top = Some(1.0);
                        1.0
                    }
                    Outcome::Chance(p) => {
                        top = Some(top.map_or(p, |t: f32| t.max(p)));
                        p
                    }
                };
                values[m.index()] = Some(p);
            }
            if let Some(top) = top {
                if best.as_ref().is_none_or(|(_, b)| top > *b) {
                    best = Some((values, top));
                }
            }
        }
        best.map(|(v, _)| v)
    }
}

impl EndgameTables {
    /// The chance of success of an afterstate (a board after its move, before the spawn) that a
    /// table covers: the spawn-averaged probability, the best of its covers; `None` when no table
    /// covers it.
    pub fn afterstate_probability(&self, afterstate: Board) -> Option<f32> {
        let mut best = None::<f32>;
        for cover in self.covers(afterstate) {
            let raw = symmetric_raw(afterstate.raw(), cover.symmetry);
            if let Outcome::Chance(p) = cover.table.afterstate_value(raw, raw) {
                best = Some(best.map_or(p, |b| b.max(p)));
            }
        }
        best
    }
}

/// The cells of `raw` (a raw board) holding an exponent of at least `low` (clamped to 1..=15):
/// bit 4·`i` set for cell `i`, every other bit clear. Each nibble is added to 16 − `low` in a
/// byte of its own, where the sum reaches 16 (bit 4 of the byte) exactly when the nibble is
/// `low` or more.
#[inline]
pub fn cells_at_least(raw: u64, low: u8) -> u64 {
    const LOW_NIBBLES: u64 = 0x0f0f_0f0f_0f0f_0f0f;
    const BYTE_ONES: u64 = 0x0101_0101_0101_0101;
    let bias = u64::from(16 - low.clamp(1, 15)) * BYTE_ONES;
    let even = ((raw & LOW_NIBBLES) + bias) >> 4 & BYTE_ONES;
    let odd = (((raw >> 4) & LOW_NIBBLES) + bias) >> 4 & BYTE_ONES;
    even | odd << 4
}

/// True when every fixed cell of `formation` holds a tile and no two fixed neighbours hold the
/// same one (so no move merges two fixed tiles).
pub(super) fn block_is_still(formation: Formation, raw: u64) -> bool {
    (0..16u8)
        .filter(|&i| formation.is_fixed(usize::from(i)))
        .all(|i| {
            let e = nibble(raw, i);
            e != 0
                && neighbours(i)
                    .filter(|&n| n > i && formation.is_fixed(usize::from(n)))
                    .all(|n| nibble(raw, n) != e)
        })
}

/// True when `raw` (block still, anchor holding the goal) fits `table`: every other fixed tile
/// above the goal, every free tile at most the goal.
fn fits(table: &Table, raw: u64) -> bool {
    let key = table.key();
    (0..16u8).all(|i| {
        let e = nibble(raw, i);
        if !key.formation.is_fixed(usize::from(i)) {
            e <= key.goal
        } else {
            i == key.anchor || e > key.goal
        }
    })
}

#[cfg(test)]
mod tests;
