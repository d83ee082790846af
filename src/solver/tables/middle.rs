//! Middle-game tables: the chance of building the block's next tile beside it, for a block of five
//! or six large tiles with eleven or ten free cells, computed on demand and remembered.
//!
//! The endgame tables ([`super::Table`]) cover eight free cells and are built whole; a block of
//! six tiles leaves ten free cells, and a whole table of them (digits up to 2^10 in every cell)
//! would hold 11^10 ≈ 2.6·10^10 entries. Two ideas from macroxue/2048-ai's README and its
//! published design (our own code): most of those positions cannot occur in good play, so
//! (1) each free cell holds at most a tile that shrinks with its distance from the anchor (a
//! position with a larger tile there is outside the table: worth 0), and (2) values are computed
//! when first asked for, by expectimax over the small game with every result remembered, so only
//! the positions reachable from the boards met are ever computed.
//!
//! - The block: one of [`MIDDLE_FORMATIONS`], five or six tiles in the two top rows (any corner
//!   and orientation through the 8 symmetries). Its smallest tile, 2^g with g in
//!   [`MIDDLE_GOALS`], is the *anchor*, at a fixed cell beside a free one; the others are larger
//!   and no two fixed neighbours are equal.
//! - A free cell at Manhattan distance d from the anchor holds at most 2^(g − max(1, d − 1)),
//!   and never less than 2^[`MIN_CAP`] ([`MiddleLayout::caps`]): 2^(g−1) beside the anchor and
//!   one step further, 2^(g−2) at three steps, 2^(g−3) at four.
//! - Success: a move makes a 2^g in a free cell beside the anchor (the next move toward the
//!   anchor merges it without moving the block). Failure: no move keeps the block and the caps.
//! - The value of a position (the free cells' tiles, the player to move) is that success
//!   probability under optimal play, spawns 2 (0.9) or 4 (0.1) in an empty free cell.
//!
//! Used by the evaluation `middle` ([`MiddleChoice`]) to decide the boards it covers, as the
//! endgame tables decide theirs, and by `corner-middle` over the corner heuristic. Measured
//! (BENCHMARKS.md, "Middle-game tables"), `--depth 3`, 100 games: they decide 5 % of the moves;
//! 16384 in 17 % of the games over the row heuristic (7 % without), 29 % over the corner
//! heuristic (6 % without); 32768 in none. Variants, 10 games each at `--depth 3`: anchors from
//! 4 rather than 64, 7 of 10 games reached 8192 (with or without the block of five); anchors
//! from 4 with a floor of 8 on the caps, 5 of 10.
use super::{
    block_is_still, eval::TableInner, neighbours, nibble, symmetric_raw, Formation, SYMMETRIES,
    TWO_PROBABILITY,
};
use crate::engine::{Board, Move, Shape};
use crate::solver::evaluation::NamedEvaluation;
use crate::solver::heuristic::RowHeuristic;
use crate::solver::{Evaluator, SolverError};
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// The blocks of the middle-game tables, each with the largest anchor exponent it is computed
/// for: three fixed cells in each of rows 0 and 1 (the block expectimax's corner play makes) and
/// four in row 0 with two in row 1 (a snake's first six tiles, seen in the mirror), both to 2^10;
/// three in row 0 with two in row 1 (eleven free cells) to 2^7, as its positions grow too many
/// above (a run with it to 2^10 passed 6.9 GB in its first five minutes).
pub const MIDDLE_FORMATIONS: [(Formation, u8); 3] = [
    (Formation { rows: [3, 3, 0, 0] }, 10),
    (Formation { rows: [4, 2, 0, 0] }, 10),
    (Formation { rows: [3, 2, 0, 0] }, 7),
];

/// The anchor exponents the middle-game tables cover: from 2^6 = 64 up to each formation's
/// largest ([`MIDDLE_FORMATIONS`]), at most 2^10 = 1024.
pub const MIDDLE_GOALS: RangeInclusive<u8> = 6..=10;

/// The smallest cap of a free cell (an exponent): an 8 may sit in any free cell, however far
/// from the anchor.
pub const MIN_CAP: u8 = 3;

/// Stack for the recursive computation (bytes): one frame pair per move of the small game, and
/// a game from an empty free area to a 1024 beside the anchor is about 500 moves.
const SOLVE_STACK: usize = 256 << 20;

/// Log2 of the entries per lazily allocated chunk of a table's values (2^14 = 16,384).
const CHUNK_BITS: u32 = 14;

/// Memory (bytes) the values of one process may take before the tables stop deciding: past it
/// no new position is computed and the search decides alone. A `corner-middle` run at depth 4
/// passed 6 GB in its first ten games; `play` must stay under 8 GB.
pub const MIDDLE_MEMORY_LIMIT: u64 = 6 << 30;

/// The stored value of probability 1 (values are stored plus one, 0 meaning "not computed").
const TOP: u16 = u16::MAX - 1;

/// Where one middle-game table's digits are: the free cells, their caps and index weights.
#[derive(Clone, Debug)]
pub struct MiddleLayout {
    formation: Formation,
    anchor: u8,
    goal: u8,
    /// Free cells, the highest cap first (the lowest index weight last).
    free: Vec<u8>,
    caps: Vec<u8>,
    weights: Vec<u64>,
    /// Free cells beside the anchor.
    beside: Vec<u8>,
    /// Nibble mask of every free cell.
    free_mask: u64,
    /// The fixed cells but the anchor, as a nibble mask.
    others_mask: u64,
    /// The model board's fixed cells: the anchor holds g, the others 13 and 14 in a checkerboard.
    base: u64,
    entries: u64,
}

/// How a move of a covered position turns out ([`MiddleLayout::outcome`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MiddleOutcome {
    /// The move moves a fixed tile, or changes the anchor: outside the table's game.
    Disturbs,
    /// The move makes a 2^g beside the anchor: probability 1.
    Made,
    /// A free tile above its cell's cap: probability 0.
    Beyond,
    /// The afterstate (a model board: placeholders in the fixed cells), before its spawn.
    After(u64),
}

impl MiddleLayout {
    /// The layout for `formation` (one of [`MIDDLE_FORMATIONS`] or another block with free
    /// cells), `anchor` (a fixed cell beside a free one) and goal `g`.
    ///
    /// # Errors
    /// A message when `anchor` is not such a cell or `g` is not in [`MIDDLE_GOALS`].
    pub fn new(formation: Formation, anchor: u8, goal: u8) -> Result<MiddleLayout, String> {
        if !formation.anchors().contains(&anchor) {
            return Err(format!(
                "cell {anchor} is not an anchor of formation {formation}"
            ));
        }
        if !MIDDLE_GOALS.contains(&goal) {
            return Err(format!("goal exponent {goal} is not in {MIDDLE_GOALS:?}"));
        }
        let distance = |c: u8| (c / 4).abs_diff(anchor / 4) + (c % 4).abs_diff(anchor % 4);
        let mut free = formation.free_cells();
        let cap = |c: u8| {
            goal.saturating_sub(distance(c).saturating_sub(1).max(1))
                .max(MIN_CAP)
        };
        free.sort_by_key(|&c| (std::cmp::Reverse(cap(c)), c));
        let caps: Vec<u8> = free.iter().map(|&c| cap(c)).collect();
        let mut weights = vec![0u64; free.len()];
        let mut w = 1u64;
        for k in (0..free.len()).rev() {
            weights[k] = w;
            w *= u64::from(caps[k]) + 1;
        }
        let beside = neighbours(anchor)
            .filter(|&n| !formation.is_fixed(usize::from(n)))
            .collect();
        let free_mask = free.iter().fold(0u64, |m, &c| m | 0xf << (4 * c));
        let fixed = (0..16u8).filter(|&i| formation.is_fixed(usize::from(i)));
        let others_mask = fixed
            .clone()
            .filter(|&i| i != anchor)
            .fold(0u64, |m, i| m | 0xf << (4 * i));
        let base = fixed
            .map(|i| {
                let e = match i {
                    _ if i == anchor => goal,
                    _ if (i / 4 + i % 4) % 2 == 0 => 14,
                    _ => 13,
                };
                u64::from(e) << (4 * i)
            })
            .sum();
        Ok(MiddleLayout {
            formation,
            anchor,
            goal,
            free,
            caps,
            weights,
            beside,
            free_mask,
            others_mask,
            base,
            entries: w,
        })
    }

    /// The block's shape.
    pub fn formation(&self) -> Formation {
        self.formation
    }

    /// The anchor cell (row-major, in the formation's orientation).
    pub fn anchor(&self) -> u8 {
        self.anchor
    }

    /// The goal exponent g (the anchor holds 2^g).
    pub fn goal(&self) -> u8 {
        self.goal
    }

    /// Each free cell with its cap (largest exponent allowed), highest cap first.
    pub fn caps(&self) -> impl Iterator<Item = (u8, u8)> + '_ {
        self.free.iter().copied().zip(self.caps.iter().copied())
    }

    /// The size of the index space (the product of the caps plus one).
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// The index of the free cells of `raw`, `None` when a free tile is above its cap.
    #[inline]
    pub fn index(&self, raw: u64) -> Option<u64> {
        let mut index = 0;
        for ((&cell, &cap), &w) in self.free.iter().zip(&self.caps).zip(&self.weights) {
            let e = nibble(raw, cell);
            if e > cap {
                return None;
            }
            index += u64::from(e) * w;
        }
        Some(index)
    }

    /// The model board of `raw`: its free cells on the placeholder block.
    #[inline]
    pub fn model(&self, raw: u64) -> u64 {
        (raw & self.free_mask) | self.base
    }

    /// What the move from `before` to `after` (raw boards in the formation's orientation,
    /// `before` in the table's game) comes to.
    #[inline]
    pub fn outcome(&self, before: u64, after: u64) -> MiddleOutcome {
        if (before ^ after) & (self.others_mask | 0xf << (4 * self.anchor)) != 0 {
            return MiddleOutcome::Disturbs;
        }
        if self.beside.iter().any(|&c| nibble(after, c) == self.goal) {
            return MiddleOutcome::Made;
        }
        match self.index(after) {
            Some(_) => MiddleOutcome::After(self.model(after)),
            None => MiddleOutcome::Beyond,
        }
    }

    /// True when `raw` (in the formation's orientation) is in this table's game: the block is
    /// still (no empty fixed cell, no two fixed neighbours equal), the anchor holds 2^g, the
    /// other fixed tiles are larger, every free tile is within its cap, and no 2^g is already
    /// beside the anchor.
    pub fn fits(&self, raw: u64) -> bool {
        let f = self.formation;
        let larger = (0..16u8)
            .filter(|&i| f.is_fixed(usize::from(i)) && i != self.anchor)
            .all(|i| nibble(raw, i) > self.goal);
        let block_ok = block_is_still(f, raw) && larger;
        block_ok && nibble(raw, self.anchor) == self.goal && self.index(raw).is_some()
    }
}

/// One middle-game table's values, computed when first asked for.
#[derive(Debug)]
struct LazyValues {
    chunks: Vec<OnceLock<Box<[AtomicU16]>>>,
}

impl LazyValues {
    fn new(entries: u64) -> LazyValues {
        let n = entries.div_ceil(1 << CHUNK_BITS) as usize;
        LazyValues {
            chunks: (0..n).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The value at `index` (0..=[`TOP`]), `None` when not computed yet.
    #[inline]
    fn get(&self, index: u64) -> Option<u16> {
        let chunk = self.chunks[(index >> CHUNK_BITS) as usize].get()?;
        let v = chunk[(index & ((1 << CHUNK_BITS) - 1)) as usize].load(Ordering::Relaxed);
        v.checked_sub(1)
    }

    /// Stores `value` (0..=[`TOP`]) at `index`; true when this allocated a chunk.
    fn set(&self, index: u64, value: u16) -> bool {
        let mut fresh = false;
        let chunk = self.chunks[(index >> CHUNK_BITS) as usize].get_or_init(|| {
            fresh = true;
            (0..1 << CHUNK_BITS).map(|_| AtomicU16::new(0)).collect()
        });
        chunk[(index & ((1 << CHUNK_BITS) - 1)) as usize].store(value + 1, Ordering::Relaxed);
        fresh
    }
}

/// One table: its layout and lazily computed values.
#[derive(Debug)]
pub struct MiddleTable {
    layout: MiddleLayout,
    values: LazyValues,
}

impl MiddleTable {
    /// An empty table of `layout`.
    pub fn new(layout: MiddleLayout) -> MiddleTable {
        let values = LazyValues::new(layout.entries());
        MiddleTable { layout, values }
    }

    /// The table's layout.
    pub fn layout(&self) -> &MiddleLayout {
        &self.layout
    }

    /// The success probability (0..=1) of the model position `raw` (player to move), computing
    /// it and every position it depends on when not known yet. Runs on the calling thread:
    /// the recursion is as deep as the small game is long (see [`MiddleTables::move_values`],
    /// which gives it a thread with a large stack).
    pub fn position_value(&self, raw: u64, stats: &MiddleStats) -> f32 {
        f32::from(self.solve(raw, stats)) / f32::from(TOP)
    }

    /// The spawn-averaged probability of the model afterstate `after`.
    pub fn afterstate_value(&self, after: u64, stats: &MiddleStats) -> f32 {
        let (mut total, mut empty) = (0.0f32, 0u32);
        for &cell in &self.layout.free {
            if nibble(after, cell) != 0 {
                continue;
            }
            empty += 1;
            let two = self.position_value(after | 1 << (4 * cell), stats);
            let four = self.position_value(after | 2 << (4 * cell), stats);
            total += TWO_PROBABILITY * two + (1.0 - TWO_PROBABILITY) * four;
        }
        if empty == 0 {
            0.0
        } else {
            total / empty as f32
        }
    }

    fn solve(&self, raw: u64, stats: &MiddleStats) -> u16 {
        let Some(index) = self.layout.index(raw) else {
            return 0;
        };
        if let Some(v) = self.values.get(index) {
            return v;
        }
        let mut best = 0.0f32;
        for m in Move::ALL {
            let Some(after) = Board::from_raw(raw).shifted(m) else {
                continue;
            };
            let p = match self.layout.outcome(raw, after.raw()) {
                MiddleOutcome::Disturbs | MiddleOutcome::Beyond => continue,
                MiddleOutcome::Made => 1.0,
                MiddleOutcome::After(a) => self.afterstate_value(a, stats),
            };
            best = best.max(p);
            if best >= 1.0 {
                break;
            }
        }
        let v = (best * f32::from(TOP)).round() as u16;
        if self.values.set(index, v) {
            stats.chunks.fetch_add(1, Ordering::Relaxed);
        }
        stats.computed.fetch_add(1, Ordering::Relaxed);
        v
    }
}

/// Counters of the computation, for reports.
#[derive(Debug, Default)]
pub struct MiddleStats {
    /// Positions computed.
    pub computed: AtomicU64,
    /// Chunks of 2^14 values allocated (2 bytes each).
    pub chunks: AtomicU64,
}

/// Every middle-game table (each formation of [`MIDDLE_FORMATIONS`], each of its anchor cells,
/// each goal of [`MIDDLE_GOALS`]), empty until asked.
#[derive(Debug)]
pub struct MiddleTables {
    tables: Vec<MiddleTable>,
    stats: MiddleStats,
    /// Bytes of values past which no new position is computed.
    memory_limit: u64,
}

impl Default for MiddleTables {
    fn default() -> MiddleTables {
        MiddleTables::new()
    }
}

impl MiddleTables {
    /// The tables, nothing computed.
    pub fn new() -> MiddleTables {
        let tables = MIDDLE_FORMATIONS
            .into_iter()
            .flat_map(|(f, top)| f.anchors().into_iter().map(move |a| (f, a, top)))
            .flat_map(|(f, a, top)| (*MIDDLE_GOALS.start()..=top).map(move |g| (f, a, g)))
            .map(|(f, a, g)| {
                MiddleTable::new(MiddleLayout::new(f, a, g).expect("an anchor and goal"))
            })
            .collect();
        MiddleTables {
            tables,
            stats: MiddleStats::default(),
            memory_limit: MIDDLE_MEMORY_LIMIT,
        }
    }

    /// The same tables with another memory limit (bytes of computed values).
    pub fn with_memory_limit(mut self, bytes: u64) -> MiddleTables {
        self.memory_limit = bytes;
        self
    }

    /// The memory the computed values take, bytes (whole chunks of 2^14 values, 2 bytes each).
    pub fn memory(&self) -> u64 {
        self.stats.chunks.load(Ordering::Relaxed) * (2 << CHUNK_BITS)
    }

    /// The counters of what was computed so far.
    pub fn stats(&self) -> &MiddleStats {
        &self.stats
    }

    /// The table of `formation`, `anchor` and `goal`, if any.
    pub fn table(&self, formation: Formation, anchor: u8, goal: u8) -> Option<&MiddleTable> {
        self.tables.iter().find(|t| {
            let l = &t.layout;
            l.formation == formation && l.anchor == anchor && l.goal == goal
        })
    }

    /// Each legal move's success probability when a table's game holds `board` in one of its 8
    /// symmetries (`None` for an illegal move, 0 for one that leaves the game); of several
    /// covers, the one whose best move is best. `None` when no table covers the board or no move
    /// stays in a game, or when the values computed so far fill the memory limit
    /// ([`MIDDLE_MEMORY_LIMIT`] unless [`MiddleTables::with_memory_limit`] set another). Values
    /// not known yet are computed (on a thread with a large stack).
    pub fn move_values(&self, board: Board) -> Option<[Option<f32>; 4]> {
        if board.has_big_tile() || self.memory() >= self.memory_limit {
            return None;
        }
        let mut best: Option<([Option<f32>; 4], f32)> = None;
        for s in 0..SYMMETRIES {
            let raw = symmetric_raw(board.raw(), s);
            for table in &self.tables {
                if !table.layout.fits(raw) {
                    continue;
                }
                let values = self.cover_values(table, board, s, raw);
                let top = values.iter().flatten().fold(0.0f32, |a, &b| a.max(b));
                if top > 0.0 && best.as_ref().is_none_or(|(_, b)| top > *b) {
                    best = Some((values, top));
                }
            }
        }
        best.map(|(v, _)| v)
    }

    /// The move values of `board` under `table` through symmetry `s` (`raw`: the board seen
    /// through it).
    fn cover_values(
        &self,
        table: &MiddleTable,
        board: Board,
        s: usize,
        raw: u64,
    ) -> [Option<f32>; 4] {
        let work = || {
            let mut values = [None; 4];
            for m in Move::ALL {
                let Some(after) = board.shifted(m) else {
                    continue;
                };
                let after = symmetric_raw(after.raw(), s);
                values[m.index()] = Some(match table.layout.outcome(raw, after) {
                    MiddleOutcome::Disturbs | MiddleOutcome::Beyond => 0.0,
                    MiddleOutcome::Made => 1.0,
                    MiddleOutcome::After(a) => table.afterstate_value(a, &self.stats),
                });
            }
            values
        };
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .stack_size(SOLVE_STACK)
                .spawn_scoped(scope, work)
                .expect("a thread for the table's computation")
                .join()
                .expect("the table's computation does not panic")
        })
    }
}

/// The one set of middle-game tables of this process: every game and search thread shares what
/// any of them computed.
pub fn shared_middle() -> Arc<MiddleTables> {
    static SHARED: OnceLock<Arc<MiddleTables>> = OnceLock::new();
    SHARED.get_or_init(|| Arc::new(MiddleTables::new())).clone()
}

/// The evaluation `middle` (or `corner-middle`): the heuristic `inner`, and on a board a
/// middle-game table covers, the table's decision. The endgame tables are left out: with them
/// deciding first (small set), `corner-middle` reached 16384 in 18 % of 100 games at depth 3
/// against 29 % without, at 7.76 GB resident against 3.85 GB (BENCHMARKS.md).
#[derive(Clone, Debug)]
pub struct MiddleEval<E> {
    middle: Arc<MiddleTables>,
    inner: E,
}

impl<E> MiddleEval<E> {
    /// `inner` with the middle-game tables.
    pub fn new(middle: Arc<MiddleTables>, inner: E) -> MiddleEval<E> {
        MiddleEval { middle, inner }
    }
}

impl<E: Evaluator<Board>> Evaluator<Board> for MiddleEval<E> {
    #[inline(always)]
    fn evaluate(&self, afterstate: Board) -> f32 {
        self.inner.evaluate(afterstate)
    }

    fn decide_exactly(&self, board: Board) -> Option<[Option<f32>; 4]> {
        self.middle.move_values(board)
    }
}

/// `--eval middle` (and `corner-middle`): [`MiddleEval`] over the heuristic `H` on 4×4 boards
/// (the row heuristic, or the corner one).
#[derive(Clone, Debug)]
pub struct MiddleChoice<H = RowHeuristic> {
    middle: Arc<MiddleTables>,
    inner: H,
}

impl<H: TableInner> NamedEvaluation for MiddleChoice<H> {
    const NAMES: &'static [(&'static str, &'static str)] = H::WITH_MIDDLE;
    type OnFour = MiddleEval<H>;
    type OnGrid = H;

    fn parse(name: &str) -> Option<Result<MiddleChoice<H>, SolverError>> {
        (name == Self::NAMES[0].0).then(|| {
            Ok(MiddleChoice {
                middle: shared_middle(),
                inner: H::default(),
            })
        })
    }

    fn on_four(&self) -> MiddleEval<H> {
        MiddleEval::new(self.middle.clone(), self.inner)
    }

    fn on_grid(&self, solver: &str, shape: Shape) -> Result<H, SolverError> {
        Err(SolverError::Unsupported {
            solver: solver.to_string(),
            shape,
            why: "the middle-game tables are for 4x4 boards only".to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn caps_shrink_with_the_distance_from_the_anchor() {
        // anchor: row 1, column 2 (cell 6), goal 2^8
        let l = MiddleLayout::new(MIDDLE_FORMATIONS[0].0, 6, 8).unwrap();
        let caps: HashMap<u8, u8> = l.caps().collect();
        // beside: (1,3) = 7 and (2,2) = 10; two steps: 3, 9, 11, 14; three: 8, 13, 15; four: 12
        for (cells, cap) in [
            (&[7u8, 10][..], 7u8),
            (&[3, 9, 11, 14], 7),
            (&[8, 13, 15], 6),
            (&[12], 5),
        ] {
            for c in cells {
                assert_eq!(caps[c], cap, "cell {c}");
            }
        }
        assert_eq!(caps.len(), 10);
        assert_eq!(l.entries(), 8u64.pow(6) * 7u64.pow(3) * 6);
        let f = MIDDLE_FORMATIONS[0].0;
        // anchor (1,0): cell 15 is five steps away, 2^(6-4) by distance, floored at 2^3
        let l = MiddleLayout::new(f, 4, 6).unwrap();
        let caps: HashMap<u8, u8> = l.caps().collect();
        assert_eq!((caps[&8], caps[&12], caps[&15]), (5, 5, MIN_CAP));
        assert!(
            MiddleLayout::new(f, 0, 8).is_err(),
            "cell 0 has no free neighbour"
        );
        assert!(MiddleLayout::new(f, 6, 11).is_err());
    }

    /// A board in the formation's orientation from rows of exponents.
    fn raw(rows: [[u8; 4]; 4]) -> u64 {
        (0..16).fold(0, |r, i| r | u64::from(rows[i / 4][i % 4]) << (4 * i))
    }

    #[test]
    fn fits_asks_for_a_still_block_above_its_anchor_and_capped_free_tiles() {
        let l = MiddleLayout::new(MIDDLE_FORMATIONS[0].0, 6, 6).unwrap();
        let good = raw([[12, 11, 10, 1], [7, 8, 6, 2], [1, 0, 0, 0], [0, 0, 0, 0]]);
        assert!(l.fits(good));
        // the anchor is not the smallest of the block
        let small = raw([[12, 11, 10, 1], [5, 8, 6, 2], [1, 0, 0, 0], [0, 0, 0, 0]]);
        assert!(!l.fits(small));
        // two equal fixed neighbours
        let equal = raw([[12, 12, 10, 1], [7, 8, 6, 2], [1, 0, 0, 0], [0, 0, 0, 0]]);
        assert!(!l.fits(equal));
        // a 32 (cap 2^5 beside the anchor) is fine; a 64 beside it is outside
        let capped = raw([[12, 11, 10, 5], [7, 8, 6, 5], [1, 0, 0, 0], [0, 0, 0, 0]]);
        assert!(l.fits(capped));
        let beyond = raw([[12, 11, 10, 1], [7, 8, 6, 6], [1, 0, 0, 0], [0, 0, 0, 0]]);
        assert!(!l.fits(beyond));
        // cell 12 (row 3, column 0) is four steps away: cap 2^3
        let far = raw([[12, 11, 10, 1], [7, 8, 6, 2], [1, 0, 0, 0], [4, 0, 0, 0]]);
        assert!(!l.fits(far));
    }

    /// Worked out by hand, anchor cell 6 holding a 64, goal 2^6: a 32 at (1,3) and a 32 at
    /// (2,3) (the column beside the anchor); up merges them into a 64 at (1,3), beside the
    /// anchor: probability 1. With the lower 32 a 16, no move makes a 64 at once.
    #[test]
    fn a_move_that_makes_the_goal_beside_the_anchor_is_a_success() {
        let tables = MiddleTables::new();
        let board = Board::from_raw(raw([
            [12, 11, 10, 1],
            [7, 8, 6, 5],
            [0, 0, 0, 5],
            [0, 0, 0, 0],
        ]));
        let v = tables.move_values(board).expect("covered");
        assert_eq!(v[Move::Up.index()], Some(1.0));
        // right: rows 0 and 1 are full and row 2's 32 is already at the right: illegal
        assert_eq!(v[Move::Right.index()], None);
        // left takes row 2's 32 to (2,0), three steps from the anchor, where the cap is 2^4
        assert_eq!(v[Move::Left.index()], Some(0.0));
        // down slides the block's first column
        assert_eq!(v[Move::Down.index()], Some(0.0));
    }

    /// Past the memory limit the tables decide nothing more, and the board they decided before
    /// is left to the search.
    #[test]
    fn past_the_memory_limit_the_tables_decide_nothing() {
        // anchor 64 at (1,2); left takes row 2's 4 and 2 to columns 0 and 1, within their caps
        let board = Board::from_raw(raw([
            [12, 11, 10, 1],
            [7, 8, 6, 3],
            [0, 0, 2, 1],
            [0, 0, 0, 0],
        ]));
        let tables = MiddleTables::new().with_memory_limit(1);
        assert_eq!(tables.memory(), 0);
        let v = tables.move_values(board).expect("nothing computed yet");
        let left = v[Move::Left.index()].expect("left is legal");
        assert!(left > 0.0 && left < 1.0, "{left}");
        assert!(
            tables.memory() >= 2 << CHUNK_BITS,
            "left's afterstate was computed"
        );
        assert_eq!(tables.move_values(board), None);
    }

    /// The value of a model position by plain recursive expectimax over the engine's moves with
    /// the rules written out again: a move keeps every fixed tile; success when a free cell
    /// beside the anchor holds the goal; a free tile above its cap fails.
    fn brute_force(l: &MiddleLayout, raw: u64, memo: &mut HashMap<u64, f64>) -> f64 {
        if let Some(&v) = memo.get(&raw) {
            return v;
        }
        let fixed_mask = !l.free_mask;
        let mut best = 0.0f64;
        for m in Move::ALL {
            let Some(after) = Board::from_raw(raw).shifted(m) else {
                continue;
            };
            let after = after.raw();
            if after & fixed_mask != raw & fixed_mask {
                continue;
            }
            if neighbours(l.anchor)
                .filter(|&n| !l.formation.is_fixed(usize::from(n)))
                .any(|n| nibble(after, n) == l.goal)
            {
                best = 1.0;
                break;
            }
            if l.index(after).is_none() {
                continue;
            }
            let empties: Vec<u8> = l
                .free
                .iter()
                .copied()
                .filter(|&c| nibble(after, c) == 0)
                .collect();
            if empties.is_empty() {
                continue;
            }
            let mut total = 0.0;
            for &c in &empties {
                total += 0.9 * brute_force(l, after | 1 << (4 * c), memo)
                    + 0.1 * brute_force(l, after | 2 << (4 * c), memo);
            }
            best = best.max(total / empties.len() as f64);
        }
        memo.insert(raw, best);
        best
    }

    /// The lazily computed values agree with plain expectimax on positions of the smallest
    /// goal (64), from a few starting fillings.
    #[test]
    fn values_agree_with_brute_force_expectimax() {
        let tables = MiddleTables::new();
        let table = tables.table(MIDDLE_FORMATIONS[0].0, 6, 6).unwrap();
        let l = table.layout().clone();
        let mut memo = HashMap::new();
        let starts = [
            [[0, 0, 0, 4], [0, 0, 0, 3], [0, 0, 2, 1], [0, 0, 0, 0]],
            [[0, 0, 0, 5], [0, 0, 0, 0], [0, 0, 4, 0], [1, 0, 0, 0]],
            [[0, 0, 0, 0], [0, 0, 0, 4], [3, 2, 1, 1], [0, 0, 0, 0]],
        ];
        let stats = MiddleStats::default();
        for s in starts {
            let r = l.model(raw(s));
            let want = std::thread::scope(|scope| {
                std::thread::Builder::new()
                    .stack_size(SOLVE_STACK)
                    .spawn_scoped(scope, || {
                        (
                            brute_force(&l, r, &mut memo),
                            table.position_value(r, &stats),
                        )
                    })
                    .unwrap()
                    .join()
                    .unwrap()
            });
            assert!((want.0 - f64::from(want.1)).abs() < 1e-3, "{s:?}: {want:?}");
            assert!(want.0 > 0.0 && want.0 < 1.0, "{s:?}: {}", want.0);
        }
    }
}
