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
//!   and no two fixed neighbours are equal. A block whose anchor is above its formation's
//!   largest goal G plays the table of goal G ([`MiddleLayout::with_larger_anchors`]): making a
//!   2^G beside it, the block's next tile begun.
//! - The values computed are kept in the tables folder by `bot2048 tables build --set middle`
//!   ([`super::middle_file`]) and loaded by every later run ([`shared_middle`]).
//! - Values live in chunks of 2^14, held whole where values are written and packed elsewhere
//!   (only their computed entries, with a bitmap: a third of the memory or less; the saved
//!   values are loaded packed). Past the memory limit ([`MIDDLE_MEMORY_LIMIT`], or less when
//!   the process nears its resident cap, [`MIDDLE_RESIDENT_CAP`]) the chunks not used by the
//!   decision being made are packed, and if that is not enough the chunks least recently used
//!   are dropped, as a transposition table replaces its entries, and computed again if play
//!   meets them; at most once every [`EVICTION_INTERVAL`] decisions (`MiddleTables::make_room`).
//!   `sim --depth 3 --games 20 --seed 7` (BENCHMARKS.md): kept to 6 GB with no dropping,
//!   32768 in 1 game; every value kept (18 GB), in 7; dropping, in 7 at 7.4 GB resident;
//!   packing, in 7 at 7.85 GB resident on a third of the CPU time.
//! - In a block of six, a free cell at Manhattan distance d from the anchor holds at most
//!   2^(g − max(1, d − 1)): 2^(g−1) beside the anchor and one step further, 2^(g−2) at three
//!   steps, 2^(g−3) at four. In a block of five, 2^(g−1) in every free cell but the farthest row's,
//!   2^(g−2) there. Never less than 2^[`MIN_CAP`] ([`MiddleLayout::caps`]).
//! - Success: a move makes a 2^g in a free cell beside the anchor (the next move toward the
//!   anchor merges it without moving the block). Failure: no move keeps the block and the caps.
//! - The value of a position (the free cells' tiles, the player to move) is that success
//!   probability under optimal play, spawns 2 (0.9) or 4 (0.1) in an empty free cell.
//!
//! Used by the evaluation `middle` ([`MiddleChoice`]) to decide the boards it covers, as the
//! endgame tables decide theirs, and by `corner-middle` over the corner heuristic; where no
//! middle-game table covers a board, the endgame tables decide it when they are built. Measured
//! (BENCHMARKS.md, "Middle-game tables"), `--depth 3`, 100 games: they decide 5 % of the moves;
//! 16384 in 17 % of the games over the row heuristic (7 % without), 29 % over the corner
//! heuristic (6 % without); 32768 in none. With the table's move played (table-margin 0), the
//! block of five's caps below and the small endgame set under them: 16384 in 68 %, 32768 in 12 %,
//! the tables deciding 19 % of the moves. Variants, 10 games each at `--depth 3`: anchors from
//! 4 rather than 64, 7 of 10 games reached 8192 (with or without the block of five); anchors
//! from 4 with a floor of 8 on the caps, 5 of 10.
use super::eval::TableChoice;
use super::file::TableFileError;
use super::middle_file::MiddleHeader;
use super::{
    block_is_still, eval::TableInner, neighbours, nibble, symmetric_raw, EndgameTables, Formation,
    SYMMETRIES, TWO_PROBABILITY,
};
use crate::engine::{Board, Move, Shape};
use crate::solver::evaluation::NamedEvaluation;
use crate::solver::heuristic::RowHeuristic;
use crate::solver::{Evaluator, SolverError};
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

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

/// The weight, in the heuristic's units per unit of probability, of an endgame table's chance
/// of success on an afterstate inside the search ([`MiddleEval`]'s [`Evaluator::exact`]): the
/// search stops at such a chance node with the heuristic's value plus this times the chance.
/// Measured (BENCHMARKS.md, "Games resumed from a tile"), `--eval corner-middle --depth 3` on
/// the 91 games of the 16384 bench: 32768 in 58 with it against 53 without (5 gained, none lost,
/// 80 played alike: a sign test's p = 0.06), for 7 % more CPU time a move (before 4e35b35 made
/// `EndgameTables::covers` cheaper: 0.95 of that CPU); 3e5 played the first 39 games move for
/// move as 1e6 did.
pub const ENDGAME_WEIGHT_IN_SEARCH: f32 = 1e6;

/// Stack for the recursive computation (bytes): one frame pair per move of the small game, and
/// a game from an empty free area to a 1024 beside the anchor is about 500 moves.
const SOLVE_STACK: usize = 256 << 20;

/// Log2 of the entries per lazily allocated chunk of a table's values (2^14 = 16,384).
const CHUNK_BITS: u32 = 14;

/// Entries per chunk of a table's values (2^14), the unit the tables' file stores.
pub const CHUNK_LEN: usize = 1 << CHUNK_BITS;

/// Memory (bytes) the values of one process may take. Past it the chunks not in use are packed,
/// then the least recently used dropped (down to [`EVICTION_TARGET`] quarters of it) and
/// recomputed if play meets them again (`MiddleTables::make_room`). A `corner-middle` run at
/// depth 4 passed 6 GB in its first ten games, and 20 games at depth 3 reached 18 GB with no
/// limit; `play` must stay under 8 GB.
pub const MIDDLE_MEMORY_LIMIT: u64 = 6 << 30;

/// Memory (bytes) a process that plays with the tables may hold resident after making room: 7
/// GB, under the 8 GB `play` allows. Past `MiddleTables::make_room`, the values' limit shrinks
/// below [`MIDDLE_MEMORY_LIMIT`] as far as the rest of the process needs
/// ([`MiddleTables::with_resident_cap`]): the allocator's holes among freed values grow over a
/// long run (20 games at depth 3 went from 1.2 to 1.7 GB besides the values), and the whole
/// chunks allocated until the next eviction add to it (with 7.5 GB here, 100 games at depth 3
/// peaked at 7.93 GB; with 7 GB, at 7.61 GB, as strong: 32768 in 34 games against 33).
pub const MIDDLE_RESIDENT_CAP: u64 = 7 << 30;

/// The share of [`MIDDLE_MEMORY_LIMIT`] (or another limit) an eviction leaves in use, in
/// quarters: 3 (three quarters).
pub const EVICTION_TARGET: u64 = 3;

/// Decisions ([`MiddleStats::epoch`]) between two evictions: in between, a board whose values
/// find no room is left to the search, so that games whose values do not fit together do not
/// drop and recompute each other's values at every move.
pub const EVICTION_INTERVAL: u32 = 2000;

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
    /// The anchor may hold more than 2^g ([`MiddleLayout::with_larger_anchors`]).
    larger_anchors: bool,
}

/// The cap of free cell `cell` (an exponent) in the table of `formation`, `anchor` and goal `g`.
/// A block of six: 2^(g − max(1, d − 1)) at Manhattan distance d from the anchor (2^(g−1) beside
/// it and one step further, 2^(g−2) at three steps, 2^(g−3) at four). A block of five (goals up to
/// 2^7): 2^(g−1) in every free cell but the row farthest from the block, 2^(g−2) there, as
/// macroxue/2048-ai's README-published design bounds its five-tile table; the distance rule left
/// most late-game positions outside it (a 64 two rows below a 128 anchor). Never below
/// 2^[`MIN_CAP`].
fn free_cap(formation: Formation, anchor: u8, goal: u8, cell: u8) -> u8 {
    let fixed: u8 = formation.rows.iter().sum();
    let below = if fixed == 5 {
        if cell / 4 == 3 {
            2
        } else {
            1
        }
    } else {
        let d = (cell / 4).abs_diff(anchor / 4) + (cell % 4).abs_diff(anchor % 4);
        d.saturating_sub(1).max(1)
    };
    goal.saturating_sub(below).max(MIN_CAP)
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
        let mut free = formation.free_cells();
        let cap = |c: u8| free_cap(formation, anchor, goal, c);
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
            larger_anchors: false,
        })
    }

    /// The same layout, also covering blocks whose anchor holds more than 2^g (the other fixed
    /// tiles larger still). The small game is the same: a free tile never reaches the anchor's
    /// value, so the anchor's own value plays no part until a 2^g is made beside it, which is
    /// success here too (the block's next tile, begun). The published idea of macroxue/2048-ai's
    /// README: one table per block with a fixed goal, whatever the block's tiles above it.
    pub fn with_larger_anchors(mut self) -> MiddleLayout {
        self.larger_anchors = true;
        self
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

    /// True when the layout also covers anchors above 2^g ([`MiddleLayout::with_larger_anchors`]).
    pub fn covers_larger_anchors(&self) -> bool {
        self.larger_anchors
    }

    /// The table's name for messages: the formation, the anchor cell and the goal, e.g.
    /// "3-3 anchor 6 goal 1024".
    pub fn name(&self) -> String {
        format!(
            "{} anchor {} goal {}{}",
            self.formation,
            self.anchor,
            1u32 << self.goal,
            if self.larger_anchors {
                " (and larger anchors)"
            } else {
                ""
            }
        )
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
        let anchor = nibble(raw, self.anchor);
        let anchor_ok = anchor == self.goal || (self.larger_anchors && anchor > self.goal);
        let larger = (0..16u8)
            .filter(|&i| f.is_fixed(usize::from(i)) && i != self.anchor)
            .all(|i| nibble(raw, i) > anchor);
        anchor_ok && larger && block_is_still(f, raw) && self.index(raw).is_some()
    }
}

/// Bytes of a chunk held whole: 2^14 stored words of 2 bytes.
const CHUNK_BYTES: u64 = 2 * CHUNK_LEN as u64;

/// Bytes of a packed chunk ([`PackedChunk`]) before its words: the bitmap (2,048) and the
/// ranks (512).
const PACKED_HEAD: u64 = (CHUNK_LEN / 8 + 2 * (CHUNK_LEN / 64)) as u64;

/// The rank table of a chunk's bitmap `present` (bit k % 64 of word k / 64 set when entry k is
/// computed): the entries set before each word, and the count set in all.
fn rank_table(present: &[u64]) -> (Box<[u16]>, usize) {
    let mut before = 0usize;
    let ranks = present
        .iter()
        .map(|w| {
            let r = before as u16;
            before += w.count_ones() as usize;
            r
        })
        .collect();
    (ranks, before)
}

/// A chunk's computed values without its empty entries, read only: a bitmap of the entries
/// computed, the count set before each of its 64-bit words (a rank table, as in succinct
/// bitvectors), and the computed entries' stored words in index order. A quarter of the chunk
/// is computed on average (25.5 % over the 131,072 chunks of the saved middle-game file), so a
/// packed chunk takes about 10.9 KB against 32 KB whole: the layout of the tables' file
/// ([`super::middle_file`]) plus the ranks.
#[derive(Debug)]
struct PackedChunk {
    /// Bit k % 64 of word k / 64 set when entry k is computed.
    present: Box<[u64]>,
    /// Entries computed before each word of `present`.
    ranks: Box<[u16]>,
    /// Each computed entry's stored word (1 + its value), in index order.
    words: Box<[u16]>,
}

impl PackedChunk {
    /// A chunk as the tables' file stores it: `bitmap` (2^14 / 8 bytes, bit k % 8 of byte k / 8
    /// set when entry k is computed) and the computed entries' stored words in index order;
    /// `None` when the lengths disagree or a word is 0 (which means "not computed").
    fn from_bitmap(bitmap: &[u8], words: Box<[u16]>) -> Option<PackedChunk> {
        if bitmap.len() != CHUNK_LEN / 8 || words.contains(&0) {
            return None;
        }
        let present: Box<[u64]> = bitmap
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect();
        let (ranks, computed) = rank_table(&present);
        (computed == words.len()).then_some(PackedChunk {
            present,
            ranks,
            words,
        })
    }

    /// Packs a chunk's 2^14 stored words (0 for an entry not computed).
    fn pack(words: impl Iterator<Item = u16>) -> PackedChunk {
        let mut present = vec![0u64; CHUNK_LEN / 64];
        let mut stored = Vec::new();
        for (k, w) in words.take(CHUNK_LEN).enumerate() {
            if w != 0 {
                present[k / 64] |= 1 << (k % 64);
                stored.push(w);
            }
        }
        let (ranks, _) = rank_table(&present);
        PackedChunk {
            present: present.into(),
            ranks,
            words: stored.into(),
        }
    }

    /// The memory it takes, bytes: [`PACKED_HEAD`] and 2 a computed entry.
    fn bytes(&self) -> u64 {
        PACKED_HEAD + 2 * self.len()
    }

    /// The entries computed.
    fn len(&self) -> u64 {
        self.words.len() as u64
    }

    /// The stored word of entry `offset` (0..2^14), `None` when it was not computed.
    #[inline]
    fn get(&self, offset: usize) -> Option<u16> {
        let word = self.present[offset / 64];
        let bit = 1u64 << (offset % 64);
        if word & bit == 0 {
            return None;
        }
        let rank = self.ranks[offset / 64] as usize + (word & (bit - 1)).count_ones() as usize;
        Some(self.words[rank])
    }

    /// Every entry's stored word, 0 for an entry not computed.
    fn unpacked(&self) -> impl Iterator<Item = u16> + '_ {
        (0..CHUNK_LEN).map(|k| self.get(k).unwrap_or(0))
    }
}

/// One middle-game table's values, computed when first asked for. Each chunk is held whole
/// (where values are written) or packed ([`PackedChunk`], read only: the chunks loaded from
/// the tables' file, and those packed to make room), or both for a while: a new value in a
/// packed chunk unpacks it whole, and its packed copy is dropped at the next
/// [`MiddleTables::make_room`]. Reads look at the whole chunk first.
#[derive(Debug)]
struct LazyValues {
    chunks: Vec<OnceLock<Box<[AtomicU16]>>>,
    /// Packed chunks, changed only under the tables' write lock.
    packed: Vec<Option<PackedChunk>>,
    /// Each chunk's last use: the epoch ([`MiddleStats`]) of the decision that last read or
    /// wrote it, 0 for a chunk loaded from the tables' file and not used since.
    used: Vec<AtomicU32>,
}

/// A chunk held whole or packed: `(last use, table, chunk number)`.
type ChunkUse = (u32, usize, usize);

impl LazyValues {
    fn new(entries: u64) -> LazyValues {
        let n = entries.div_ceil(1 << CHUNK_BITS) as usize;
        LazyValues {
            chunks: (0..n).map(|_| OnceLock::new()).collect(),
            packed: (0..n).map(|_| None).collect(),
            used: (0..n).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    /// The value at `index` (0..=[`TOP`]), `None` when not computed yet; marks its chunk used
    /// in decision `epoch`, unless a later decision (another game's) has used it since.
    #[inline]
    fn get(&self, index: u64, epoch: u32) -> Option<u16> {
        let number = (index >> CHUNK_BITS) as usize;
        let offset = (index & ((1 << CHUNK_BITS) - 1)) as usize;
        let word = match self.chunks[number].get() {
            Some(chunk) => chunk[offset].load(Ordering::Relaxed),
            None => self.packed[number].as_ref()?.get(offset)?,
        };
        let used = &self.used[number];
        if used.load(Ordering::Relaxed) < epoch {
            used.fetch_max(epoch, Ordering::Relaxed);
        }
        word.checked_sub(1)
    }

    /// Every chunk held whole or packed, with its last use, as `(last use, table, number)`
    /// with `table` the given number.
    fn uses(&self, table: usize) -> impl Iterator<Item = ChunkUse> + '_ {
        let slots = self.chunks.iter().zip(&self.packed).zip(&self.used);
        let stored = slots
            .enumerate()
            .filter(|(_, ((c, p), _))| c.get().is_some() || p.is_some());
        stored.map(move |(n, (_, u))| (u.load(Ordering::Relaxed), table, n))
    }

    /// Whether chunk `number` is held whole.
    fn is_whole(&self, number: usize) -> bool {
        self.chunks[number].get().is_some()
    }

    /// Packs chunk `number` held whole and frees the whole one, replacing any packed copy (the
    /// whole chunk holds its values too); `(bytes of the packed copy replaced, bytes packed)`.
    fn pack(&mut self, number: usize) -> (u64, u64) {
        let Some(whole) = self.chunks[number].take() else {
            return (0, 0);
        };
        let packed = PackedChunk::pack(whole.iter().map(|w| w.load(Ordering::Relaxed)));
        drop(whole);
        let bytes = packed.bytes();
        let replaced = self.packed[number].replace(packed);
        (replaced.map_or(0, |p| p.bytes()), bytes)
    }

    /// Drops the packed copy of chunk `number` when it is held whole too (the whole one holds
    /// every value of it); the bytes freed.
    fn drop_stale_packed(&mut self, number: usize) -> u64 {
        if !self.is_whole(number) {
            return 0;
        }
        self.packed[number].take().map_or(0, |p| p.bytes())
    }

    /// Drops chunk `number`, whole and packed; `(whether it was held whole, bytes of its
    /// packed copy)`.
    fn drop_chunk(&mut self, number: usize) -> (bool, u64) {
        let whole = self.chunks[number].take().is_some();
        (whole, self.packed[number].take().map_or(0, |p| p.bytes()))
    }

    /// The chunks held whole or packed: each one's number and its stored words (value + 1, 0
    /// when not computed).
    fn chunks(&self) -> impl Iterator<Item = (u32, Vec<u16>)> + '_ {
        let slots = self.chunks.iter().zip(&self.packed).enumerate();
        slots.filter_map(|(n, (c, p))| {
            let words = match (c.get(), p) {
                (Some(c), _) => c.iter().map(|w| w.load(Ordering::Relaxed)).collect(),
                (None, Some(p)) => p.unpacked().collect(),
                (None, None) => return None,
            };
            Some((n as u32, words))
        })
    }

    /// Chunks held whole or packed.
    fn stored_chunks(&self) -> u64 {
        let slots = self.chunks.iter().zip(&self.packed);
        slots
            .filter(|(c, p)| c.get().is_some() || p.is_some())
            .count() as u64
    }

    /// Puts chunk `number` as the tables' file stores it ([`PackedChunk::from_bitmap`]), packed;
    /// `None` when `number` is out of range, the chunk is there already, or the bitmap and the
    /// words disagree.
    fn put_chunk(&mut self, number: u32, bitmap: &[u8], words: Box<[u16]>) -> Option<()> {
        let n = number as usize;
        let free = self.chunks.get(n)?.get().is_none() && self.packed[n].is_none();
        if !free {
            return None;
        }
        self.packed[n] = Some(PackedChunk::from_bitmap(bitmap, words)?);
        Some(())
    }

    /// Stores `value` (0..=[`TOP`]) at `index`, holding its chunk whole (unpacking it, or
    /// allocating it when it has none yet, marked used in decision `epoch`) when `stats` has
    /// room for one (counting it); `None` when it has not.
    fn set(&self, index: u64, value: u16, stats: &MiddleStats, epoch: u32) -> Option<()> {
        let number = (index >> CHUNK_BITS) as usize;
        let slot = &self.chunks[number];
        let chunk = match slot.get() {
            Some(c) => c,
            None => {
                if !stats.has_room() {
                    return None;
                }
                let packed = self.packed[number].as_ref();
                let mut fresh = false;
                let c = slot.get_or_init(|| {
                    fresh = true;
                    let mut words = packed.map(|p| p.unpacked());
                    let mut next = || words.as_mut().map_or(0, |w| w.next().unwrap_or(0));
                    (0..CHUNK_LEN).map(|_| AtomicU16::new(next())).collect()
                });
                if fresh {
                    stats.chunks.fetch_add(1, Ordering::Relaxed);
                    self.used[number].fetch_max(epoch, Ordering::Relaxed);
                }
                c
            }
        };
        chunk[(index & ((1 << CHUNK_BITS) - 1)) as usize].store(value + 1, Ordering::Relaxed);
        Some(())
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

    /// Chunks of values stored so far (2^14 entries each), whole or packed.
    pub fn stored_chunks(&self) -> u64 {
        self.values.stored_chunks()
    }

    /// Positions whose values are stored (computed, or loaded from the tables' file).
    pub fn stored_positions(&self) -> u64 {
        let chunks = self.values.chunks();
        chunks
            .map(|(_, words)| words.iter().filter(|&&w| w != 0).count() as u64)
            .sum()
    }

    /// Chunks the table's index space spans.
    pub fn chunk_count(&self) -> u64 {
        self.values.chunks.len() as u64
    }

    /// The allocated chunks, each with its number and its 2^14 stored words (1 + the value in
    /// 65,534ths, 0 when not computed), for the tables' file.
    pub fn chunks(&self) -> impl Iterator<Item = (u32, Vec<u16>)> + '_ {
        self.values.chunks()
    }

    /// Puts chunk `number` as the tables' file stores it, packed: `bitmap`, 2^14 / 8 bytes
    /// with bit k % 8 of byte k / 8 set when entry k is computed, and each computed entry's
    /// stored word (1 + its value in 65,534ths) in index order. `None` when the chunk is out of
    /// range or given twice, the bitmap is not 2,048 bytes, its count of set bits is not the
    /// count of words, or a word is 0.
    pub fn put_chunk(&mut self, number: u32, bitmap: &[u8], words: Box<[u16]>) -> Option<()> {
        self.values.put_chunk(number, bitmap, words)
    }

    /// The success probability (0..=1) of the model position `raw` (player to move), computing
    /// it and every position it depends on when not known yet. Runs on the calling thread:
    /// the recursion is as deep as the small game is long (see [`MiddleTables::move_values`],
    /// which gives it a thread with a large stack). `None` when a value it needs is not known
    /// and the memory limit leaves no room to store it. `decision` is the decision the value is
    /// asked for ([`MiddleStats::epoch`]): every chunk it reads or writes is marked used in it,
    /// so that `MiddleTables::make_room` keeps them while that decision is made.
    pub fn position_value(&self, raw: u64, stats: &MiddleStats, decision: u32) -> Option<f32> {
        Some(f32::from(self.solve(raw, stats, decision)?) / f32::from(TOP))
    }

    /// The spawn-averaged probability of the model afterstate `after`; `None` and `decision` as
    /// for [`MiddleTable::position_value`].
    pub fn afterstate_value(&self, after: u64, stats: &MiddleStats, decision: u32) -> Option<f32> {
        self.spawn_average(after, |raw| self.solve(raw, stats, decision))
    }

    /// The spawn-averaged probability of the model afterstate `after` from the values known,
    /// computing none (so on any thread's stack); `None` when one is not known yet. Marks the
    /// chunks read used in `decision`, as [`MiddleTable::position_value`].
    fn known_afterstate_value(&self, after: u64, decision: u32) -> Option<f32> {
        self.spawn_average(after, |raw| match self.layout.index(raw) {
            None => Some(0),
            Some(index) => self.values.get(index, decision),
        })
    }

    /// The average over the spawns in the free cells of the model afterstate `after` (a 2 with
    /// [`TWO_PROBABILITY`], else a 4) of `value` (in 65,534ths, [`TOP`]), as a probability; 0 when no
    /// free cell is empty, `None` when `value` gives `None` for one.
    fn spawn_average(&self, after: u64, mut value: impl FnMut(u64) -> Option<u16>) -> Option<f32> {
        let (mut total, mut empty) = (0.0f32, 0u32);
        for &cell in &self.layout.free {
            if nibble(after, cell) != 0 {
                continue;
            }
            empty += 1;
            let two = f32::from(value(after | 1 << (4 * cell))?) / f32::from(TOP);
            let four = f32::from(value(after | 2 << (4 * cell))?) / f32::from(TOP);
            total += TWO_PROBABILITY * two + (1.0 - TWO_PROBABILITY) * four;
        }
        Some(if empty == 0 {
            0.0
        } else {
            total / empty as f32
        })
    }

    fn solve(&self, raw: u64, stats: &MiddleStats, decision: u32) -> Option<u16> {
        let Some(index) = self.layout.index(raw) else {
            return Some(0);
        };
        if let Some(v) = self.values.get(index, decision) {
            return Some(v);
        }
        let mut best = 0.0f32;
        for m in Move::ALL {
            let Some(after) = Board::from_raw(raw).shifted(m) else {
                continue;
            };
            let p = match self.layout.outcome(raw, after.raw()) {
                MiddleOutcome::Disturbs | MiddleOutcome::Beyond => continue,
                MiddleOutcome::Made => 1.0,
                MiddleOutcome::After(a) => self.afterstate_value(a, stats, decision)?,
            };
            best = best.max(p);
            if best >= 1.0 {
                break;
            }
        }
        let v = (best * f32::from(TOP)).round() as u16;
        self.values.set(index, v, stats, decision)?;
        stats.computed.fetch_add(1, Ordering::Relaxed);
        Some(v)
    }
}

/// Counters of the computation, for reports, and the memory limit it keeps to.
#[derive(Debug)]
pub struct MiddleStats {
    /// Positions computed.
    pub computed: AtomicU64,
    /// Chunks of 2^14 values held whole (2 bytes each).
    pub chunks: AtomicU64,
    /// Bytes of the packed chunks (loaded from the tables' file or packed to make room).
    pub packed_bytes: AtomicU64,
    /// Chunks packed to make room (`MiddleTables::make_room`).
    pub packed: AtomicU64,
    /// Chunks dropped to make room.
    pub evicted: AtomicU64,
    /// The latest decision begun: [`MiddleTables::move_values`] counts them from 1, and each
    /// chunk remembers the latest one that used it.
    pub epoch: AtomicU32,
    /// The epoch of the last eviction.
    last_eviction: AtomicU32,
    /// Bytes of values (chunks whole and packed) past which no chunk is allocated or unpacked
    /// (so no position outside them is computed).
    limit: u64,
    /// The limit in force: [`MiddleStats::limit`], or less when the process's other memory
    /// leaves less under its resident cap ([`MiddleTables::with_resident_cap`]).
    room: AtomicU64,
}

impl Default for MiddleStats {
    /// Nothing computed, no limit.
    fn default() -> MiddleStats {
        MiddleStats::with_memory_limit(u64::MAX)
    }
}

impl MiddleStats {
    /// Nothing computed; at most `bytes` of values.
    pub fn with_memory_limit(bytes: u64) -> MiddleStats {
        MiddleStats {
            computed: AtomicU64::new(0),
            chunks: AtomicU64::new(0),
            packed_bytes: AtomicU64::new(0),
            packed: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
            epoch: AtomicU32::new(1),
            // the first eviction is due at once
            last_eviction: AtomicU32::new(0u32.wrapping_sub(EVICTION_INTERVAL)),
            limit: bytes,
            room: AtomicU64::new(bytes),
        }
    }

    /// Sets the limit (bytes of values), and the limit in force with it.
    fn set_limit(&mut self, bytes: u64) {
        self.limit = bytes;
        self.room = AtomicU64::new(bytes);
    }

    /// The limit in force, bytes of values.
    fn room(&self) -> u64 {
        self.room.load(Ordering::Relaxed)
    }

    /// Bytes of values in use: the chunks held whole and the packed ones.
    fn in_use(&self) -> u64 {
        let whole = self.chunks.load(Ordering::Relaxed) * CHUNK_BYTES;
        whole + self.packed_bytes.load(Ordering::Relaxed)
    }

    /// Whether one more chunk may be held whole within the limit in force.
    fn has_room(&self) -> bool {
        self.in_use().saturating_add(CHUNK_BYTES) <= self.room()
    }
}

/// Every middle-game table (each formation of [`MIDDLE_FORMATIONS`], each of its anchor cells,
/// each goal of [`MIDDLE_GOALS`]), empty until asked.
#[derive(Debug)]
pub struct MiddleTables {
    /// Written only to drop chunks ([`MiddleTables::move_values`]); every computation reads.
    tables: RwLock<Vec<MiddleTable>>,
    stats: MiddleStats,
    /// Past the memory limit, drop the chunks least recently used rather than stop computing.
    evicts: bool,
    /// The saved file's header, when the values were loaded from one.
    saved: Option<MiddleHeader>,
    /// Bytes the whole process may hold resident ([`MiddleTables::with_resident_cap`]).
    resident_cap: Option<u64>,
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
            .flat_map(|(f, a, top)| (*MIDDLE_GOALS.start()..=top).map(move |g| (f, a, g, top)))
            .map(|(f, a, g, top)| {
                let layout = MiddleLayout::new(f, a, g).expect("an anchor and goal");
                MiddleTable::new(if g == top {
                    layout.with_larger_anchors()
                } else {
                    layout
                })
            })
            .collect();
        MiddleTables {
            tables: RwLock::new(tables),
            stats: MiddleStats::with_memory_limit(MIDDLE_MEMORY_LIMIT),
            evicts: true,
            saved: None,
            resident_cap: None,
        }
    }

    /// The same tables, keeping every value computed: past the memory limit no new position is
    /// computed (for `tables build --set middle`, which saves them all).
    pub fn without_eviction(mut self) -> MiddleTables {
        self.evicts = false;
        self
    }

    /// The same tables with another memory limit (bytes of computed values).
    pub fn with_memory_limit(mut self, bytes: u64) -> MiddleTables {
        self.stats.set_limit(bytes);
        self
    }

    /// The same tables in a process that may hold at most `bytes` resident: after each
    /// `MiddleTables::make_room`, the values' limit becomes at most `bytes` less the memory
    /// the process holds besides them (`room_under_cap`), as read from the system (Linux:
    /// `/proc/self/statm`; elsewhere no cap is kept).
    pub fn with_resident_cap(mut self, bytes: u64) -> MiddleTables {
        self.resident_cap = Some(bytes);
        self
    }

    /// The same tables, marked as loaded from a saved file with `header`.
    pub fn with_saved(mut self, header: MiddleHeader) -> MiddleTables {
        self.saved = Some(header);
        self
    }

    /// The header of the saved file the values were loaded from, `None` when they were not.
    pub fn saved(&self) -> Option<&MiddleHeader> {
        self.saved.as_ref()
    }

    /// Every table, in a fixed order (formation, anchor, goal), the order of the tables' file.
    /// Hold the guard briefly: dropping chunks waits for it.
    pub fn tables(&self) -> RwLockReadGuard<'_, Vec<MiddleTable>> {
        self.tables.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Every table, to put the values of the tables' file ([`MiddleTable::put_chunk`]).
    pub fn tables_mut(&mut self) -> &mut Vec<MiddleTable> {
        self.tables.get_mut().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts the packed chunks put from the tables' file ([`MiddleTable::put_chunk`]): their
    /// bytes in the memory in use, their values in the positions computed. Call it once, after
    /// the last one is put.
    pub fn count_loaded(&self) {
        let tables = self.tables();
        let packed = tables.iter().flat_map(|t| t.values.packed.iter().flatten());
        let (bytes, positions) = packed.fold((0, 0), |(b, p), c| (b + c.bytes(), p + c.len()));
        self.stats.packed_bytes.fetch_add(bytes, Ordering::Relaxed);
        self.stats.computed.fetch_add(positions, Ordering::Relaxed);
    }

    /// The memory the values take, bytes: chunks held whole (2^14 values, 2 bytes each) and
    /// packed chunks (`PackedChunk`: 2,560 bytes and 2 a computed value).
    pub fn memory(&self) -> u64 {
        self.stats.in_use()
    }

    /// The counters of what was computed so far.
    pub fn stats(&self) -> &MiddleStats {
        &self.stats
    }

    /// Each legal move's success probability when a table's game holds `board` in one of its 8
    /// symmetries (`None` for an illegal move, 0 for one that leaves the game); of several
    /// covers, the one whose best move is best. `None` when no table covers the board or no move
    /// stays in a game. Values not known yet are computed (on a thread with a large stack) while
    /// the memory limit ([`MIDDLE_MEMORY_LIMIT`] unless [`MiddleTables::with_memory_limit`] set
    /// another) leaves room for them. When a cover needs more, the chunks least recently used
    /// are dropped (to [`EVICTION_TARGET`] quarters of the limit, at most once every
    /// [`EVICTION_INTERVAL`] decisions) and the board is tried once more; without eviction
    /// ([`MiddleTables::without_eviction`]), before the interval has passed or when that fails,
    /// the cover is passed over and the values known still decide.
    pub fn move_values(&self, board: Board) -> Option<[Option<f32>; 4]> {
        if board.has_big_tile() {
            return None;
        }
        let now = self.stats.epoch.fetch_add(1, Ordering::Relaxed) + 1;
        let (best, starved) = self.best_cover(board, now);
        let last = self.stats.last_eviction.load(Ordering::Relaxed);
        let due = now.wrapping_sub(last) >= EVICTION_INTERVAL;
        if starved && self.evicts && due && self.make_room(now) {
            return self.best_cover(board, now).0;
        }
        best
    }

    /// The best cover's move values ([`MiddleTables::move_values`]) in decision `now`, and
    /// whether a cover was passed over for want of memory.
    fn best_cover(&self, board: Board, now: u32) -> (Option<[Option<f32>; 4]>, bool) {
        let tables = self.tables();
        let mut best: Option<([Option<f32>; 4], f32)> = None;
        let mut starved = false;
        for s in 0..SYMMETRIES {
            let raw = symmetric_raw(board.raw(), s);
            for table in tables.iter() {
                if !table.layout.fits(raw) {
                    continue;
                }
                let Some(values) = self.cover_values(table, board, s, raw, now) else {
                    starved = true;
                    continue;
                };
                let top = values.iter().flatten().fold(0.0f32, |a, &b| a.max(b));
                if top > 0.0 && best.as_ref().is_none_or(|(_, b)| top > *b) {
                    best = Some((values, top));
                }
            }
        }
        (best.map(|(v, _)| v), starved)
    }

    /// Makes room for decision `now`, never touching the chunks it used, nor those of later
    /// decisions (another game's, begun while this one waited for the lock): packs every other
    /// chunk held whole ([`PackedChunk`]: a third of its memory on average; reads stay exact, a
    /// new value unpacks the chunk again) and drops the packed copies of the chunks held whole,
    /// then drops the chunks least recently used, whole or packed, until at most
    /// [`EVICTION_TARGET`] quarters of the memory limit are in use (with every other chunk last
    /// used in the same decision as the last one dropped; the saved chunks no decision has used
    /// yet are dropped one by one). Last, the allocator is asked to
    /// return the memory freed ([`release_free_memory`]). True when a chunk fits afterwards
    /// (another thread may have made the room).
    ///
    /// Measured (`sim --depth 3 --seed 7`, 2026-12-04, BENCHMARKS.md): packing rather than only
    /// dropping was as strong (32768 in 7 of 20 games) on a third of the CPU time, as almost no
    /// value is computed again. Giving the freed memory back only at the end peaked at 8.8 GB
    /// resident (the packed copies are allocated while the whole chunks' memory is still held),
    /// every 256 MB at 7.85 GB; 100 games with a 7.5 GB resident cap, 7.93 GB. Keeping a third
    /// of the limit whole and packing the rest lost the 32768s (1 and 3 games of 20).
    ///
    /// An earlier decision still being made by another game's thread is not known here: its
    /// chunks may be packed (read the same; a new value unpacks its chunk again) or dropped
    /// (computed again), which costs time, never a value.
    fn make_room(&self, now: u32) -> bool {
        let started = Instant::now();
        let mut tables = self.tables.write().unwrap_or_else(|e| e.into_inner());
        let stats = &self.stats;
        let before = stats.in_use();
        let target = stats.room() / 4 * EVICTION_TARGET;
        if before <= target {
            // another thread made room while this one waited for the lock
            return stats.has_room();
        }
        let mut uses: Vec<ChunkUse> = (tables.iter().enumerate())
            .flat_map(|(i, t)| t.values.uses(i))
            .collect();
        uses.sort_unstable();
        let (packed, mut trimming) = pack_unused(&mut tables, stats, &uses, now);
        let packed_in_use = stats.in_use();
        let dropped = drop_least_recent(&mut tables, stats, &uses, now, target);
        drop(tables);
        let t = Instant::now();
        release_free_memory();
        trimming += t.elapsed();
        let resident = self.resident_cap.and_then(|_| resident_bytes());
        if let (Some(cap), Some(resident)) = (self.resident_cap, resident) {
            let room = room_under_cap(stats.limit, cap, resident, stats.in_use());
            stats.room.store(room, Ordering::Relaxed);
        }
        stats.last_eviction.store(now, Ordering::Relaxed);
        tracing::debug!(
            decision = now,
            packed,
            dropped,
            mb_before = before >> 20,
            mb_packed = packed_in_use >> 20,
            mb_after = stats.in_use() >> 20,
            ms = started.elapsed().as_millis() as u64,
            ms_trimming = trimming.as_millis() as u64,
            mb_resident = resident.map(|r| r >> 20),
            mb_room = stats.room() >> 20,
            "middle-game values: made room"
        );
        stats.has_room()
    }

    /// The move values of `board` under `table` through symmetry `s` (`raw`: the board seen
    /// through it) in decision `now`; `None` when the memory limit leaves no room for a value
    /// they need.
    fn cover_values(
        &self,
        table: &MiddleTable,
        board: Board,
        s: usize,
        raw: u64,
        now: u32,
    ) -> Option<[Option<f32>; 4]> {
        let values_by = |afterstate: &dyn Fn(u64) -> Option<f32>| {
            let mut values = [None; 4];
            for m in Move::ALL {
                let Some(after) = board.shifted(m) else {
                    continue;
                };
                let after = symmetric_raw(after.raw(), s);
                values[m.index()] = Some(match table.layout.outcome(raw, after) {
                    MiddleOutcome::Disturbs | MiddleOutcome::Beyond => 0.0,
                    MiddleOutcome::Made => 1.0,
                    MiddleOutcome::After(a) => afterstate(a)?,
                });
            }
            Some(values)
        };
        // most boards' values are known: read them here, without a thread
        if let Some(values) = values_by(&|a| table.known_afterstate_value(a, now)) {
            return Some(values);
        }
        let work = || values_by(&|a| table.afterstate_value(a, &self.stats, now));
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

/// Packs every chunk of `uses` held whole and last used before decision `now`, and drops the
/// packed copies of the chunks of `now` or later held whole (for [`MiddleTables::make_room`], counting
/// in `stats`); the chunks packed, and the time spent giving memory back
/// ([`release_free_memory`], every [`TRIM_EVERY`] bytes of whole chunks freed).
fn pack_unused(
    tables: &mut [MiddleTable],
    stats: &MiddleStats,
    uses: &[ChunkUse],
    now: u32,
) -> (u64, Duration) {
    let (mut packed, mut freed, mut trimming) = (0u64, 0u64, Duration::ZERO);
    for &(used, t, n) in uses {
        let values = &mut tables[t].values;
        if !values.is_whole(n) {
            continue;
        }
        if used >= now {
            let stale = values.drop_stale_packed(n);
            stats.packed_bytes.fetch_sub(stale, Ordering::Relaxed);
            continue;
        }
        let (replaced, bytes) = values.pack(n);
        stats.chunks.fetch_sub(1, Ordering::Relaxed);
        stats.packed_bytes.fetch_add(bytes, Ordering::Relaxed);
        stats.packed_bytes.fetch_sub(replaced, Ordering::Relaxed);
        packed += 1;
        freed += CHUNK_BYTES;
        // the whole chunks were allocated by other threads than this one, in other arenas:
        // their memory must go back before the packed copies take as much again
        if freed >= TRIM_EVERY {
            let t = Instant::now();
            release_free_memory();
            trimming += t.elapsed();
            freed = 0;
        }
    }
    stats.packed.fetch_add(packed, Ordering::Relaxed);
    (packed, trimming)
}

/// Drops the chunks of `uses` (sorted by last use) last used before decision `now`, least
/// recently used first, until at most `target` bytes of values are in use, with every other
/// chunk last used in the same decision as the last one dropped (a decision's values lean on
/// each other), but for the saved chunks no decision has used (epoch 0), dropped one by one;
/// the chunks dropped.
fn drop_least_recent(
    tables: &mut [MiddleTable],
    stats: &MiddleStats,
    uses: &[ChunkUse],
    now: u32,
    target: u64,
) -> u64 {
    let (mut dropped, mut last) = (0u64, None);
    for &(used, t, n) in uses.iter().take_while(|u| u.0 < now) {
        if stats.in_use() <= target && (last != Some(used) || used == 0) {
            break;
        }
        last = Some(used);
        let (whole, packed) = tables[t].values.drop_chunk(n);
        stats.chunks.fetch_sub(u64::from(whole), Ordering::Relaxed);
        stats.packed_bytes.fetch_sub(packed, Ordering::Relaxed);
        dropped += 1;
    }
    stats.evicted.fetch_add(dropped, Ordering::Relaxed);
    dropped
}

/// Bytes of values a process may hold, at most `limit`, when it holds `resident` bytes of which
/// `values` are values, so that its resident memory stays under `cap`: `limit` or `cap` less
/// the memory besides the values (the endgame tables, the searches' tables, the allocator's
/// holes among freed values), whichever is less.
fn room_under_cap(limit: u64, cap: u64, resident: u64, values: u64) -> u64 {
    limit.min(cap.saturating_sub(resident.saturating_sub(values)))
}

/// The resident memory of this process, bytes; `None` where the system does not tell
/// (`/proc/self/statm`'s second field, in pages of 4 KiB).
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Bytes of whole chunks packed by [`MiddleTables::make_room`] between two calls of
/// [`release_free_memory`]: 256 MB.
const TRIM_EVERY: u64 = 256 << 20;

/// Asks the allocator to return the memory it holds free to the system (glibc's
/// `malloc_trim`, which also releases the free pages inside its heaps), so that the chunks
/// freed by [`MiddleTables::make_room`] leave the process's resident memory rather than stay
/// as holes among the values kept. Elsewhere than glibc on Linux it does nothing.
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer and only changes the allocator's own free lists,
    // under the allocator's locks; it may be called from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The one set of middle-game tables of this process: every game and search thread shares what
/// any of them computed. The first call loads the values saved in the tables folder
/// ([`super::middle_file`], written by `bot2048 tables build --set middle`) when there are any;
/// otherwise the tables start empty.
///
/// # Errors
/// A saved file that cannot be used ([`TableFileError`], naming it and what to run): it is
/// refused, never passed over.
pub fn shared_middle() -> Result<Arc<MiddleTables>, TableFileError> {
    static SHARED: Mutex<Option<Arc<MiddleTables>>> = Mutex::new(None);
    let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(tables) = shared.as_ref() {
        return Ok(tables.clone());
    }
    let loaded = match super::file::tables_dir() {
        Some(dir) => super::middle_file::load_middle_if_saved(&dir)?,
        None => None,
    };
    let tables = Arc::new(
        match loaded {
            Some((tables, header)) => tables.with_saved(header),
            None => MiddleTables::new(),
        }
        .with_resident_cap(MIDDLE_RESIDENT_CAP),
    );
    *shared = Some(tables.clone());
    Ok(tables)
}

/// The evaluation `middle` (or `corner-middle`): the heuristic `inner`, and on a board a
/// middle-game table covers, the table's decision; on a board none covers, the endgame tables'
/// decision when they are built ([`MiddleEval::with_endgame`]). On the same 30 games at depth 3
/// (table-margin 0), the small endgame set deciding after the middle-game tables took 32768 from
/// none to 5 games; deciding before them it had cost 16384 (18 % of 100 games against 29 %, with
/// table-margin 0.01). BENCHMARKS.md, "Middle-game tables". Inside the search, a board an
/// endgame table covers is valued with the table's chance ([`ENDGAME_WEIGHT_IN_SEARCH`]).
#[derive(Clone, Debug)]
pub struct MiddleEval<E> {
    middle: Arc<MiddleTables>,
    endgame: Option<Arc<EndgameTables>>,
    inner: E,
}

impl<E> MiddleEval<E> {
    /// `inner` with the middle-game tables.
    pub fn new(middle: Arc<MiddleTables>, inner: E) -> MiddleEval<E> {
        MiddleEval {
            middle,
            endgame: None,
            inner,
        }
    }

    /// The same, with the endgame tables deciding the boards no middle-game table covers (the
    /// last blocks before a tile of 32768: eight large tiles, eight free cells).
    pub fn with_endgame(mut self, endgame: Option<Arc<EndgameTables>>) -> MiddleEval<E> {
        self.endgame = endgame;
        self
    }
}

impl<E: Evaluator<Board>> Evaluator<Board> for MiddleEval<E> {
    #[inline(always)]
    fn evaluate(&self, afterstate: Board) -> f32 {
        self.inner.evaluate(afterstate)
    }

    /// On an afterstate an endgame table covers: `inner`'s value plus
    /// [`ENDGAME_WEIGHT_IN_SEARCH`] × the table's chance of success, and the search stops there.
    /// The middle-game tables are not asked here (their values are computed as play meets them,
    /// which a search's many boards would set off).
    #[inline]
    fn exact(&self, afterstate: Board) -> Option<f32> {
        let p = self.endgame.as_ref()?.afterstate_probability(afterstate)?;
        Some(self.inner.evaluate(afterstate) + ENDGAME_WEIGHT_IN_SEARCH * p)
    }

    fn decide_exactly(&self, board: Board) -> Option<[Option<f32>; 4]> {
        self.middle
            .move_values(board)
            .or_else(|| self.endgame.as_ref()?.move_values(board))
    }
}

/// `--eval middle` (and `corner-middle`): [`MiddleEval`] over the heuristic `H` on 4×4 boards
/// (the row heuristic, or the corner one).
#[derive(Clone, Debug)]
pub struct MiddleChoice<H = RowHeuristic> {
    middle: Arc<MiddleTables>,
    endgame: Option<Arc<EndgameTables>>,
    inner: H,
}

impl<H: TableInner> MiddleChoice<H> {
    /// The process's middle-game tables ([`shared_middle`]: the saved values when there are
    /// any) over the heuristic `H`, with the endgame tables under them when they are built
    /// ([`TableChoice::load_if_built`]).
    ///
    /// # Errors
    /// [`SolverError::Tables`] for a saved middle-game file or an endgame table file that cannot
    /// be used (named, with what to run).
    pub fn load() -> Result<MiddleChoice<H>, SolverError> {
        let middle = shared_middle().map_err(|e| SolverError::Tables {
            message: e.to_string(),
        })?;
        let endgame = TableChoice::<H>::load_if_built(false)?.map(|c| c.tables().clone());
        Ok(MiddleChoice {
            middle,
            endgame,
            inner: H::default(),
        })
    }

    /// `middle` over the heuristic `H` (for `tables build --set middle`, which fills tables of
    /// its own).
    pub fn with_tables(middle: Arc<MiddleTables>) -> MiddleChoice<H> {
        MiddleChoice {
            middle,
            endgame: None,
            inner: H::default(),
        }
    }

    /// The tables.
    pub fn tables(&self) -> &Arc<MiddleTables> {
        &self.middle
    }

    /// The endgame tables deciding the boards no middle-game table covers, when they are built.
    pub fn endgame(&self) -> Option<&Arc<EndgameTables>> {
        self.endgame.as_ref()
    }

    /// The heuristic's name (`heuristic` or `corner`).
    pub fn inner_name(&self) -> &'static str {
        self.inner.name()
    }
}

impl<H: TableInner> NamedEvaluation for MiddleChoice<H> {
    const NAMES: &'static [(&'static str, &'static str)] = H::WITH_MIDDLE;
    type OnFour = MiddleEval<H>;
    type OnGrid = H;

    fn parse(name: &str) -> Option<Result<MiddleChoice<H>, SolverError>> {
        (name == Self::NAMES[0].0).then(MiddleChoice::load)
    }

    fn on_four(&self) -> MiddleEval<H> {
        MiddleEval::new(self.middle.clone(), self.inner).with_endgame(self.endgame.clone())
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

    #[test]
    fn a_block_of_five_caps_its_free_cells_below_the_goal_and_the_far_row_lower() {
        // 3-2, anchor (1,1) (cell 5), goal 2^7: 64 in rows 0 to 2, 32 in row 3, wherever the
        // cell is from the anchor
        let l = MiddleLayout::new(MIDDLE_FORMATIONS[2].0, 5, 7).unwrap();
        let caps: HashMap<u8, u8> = l.caps().collect();
        assert_eq!(caps.len(), 11);
        for c in [3u8, 6, 7, 8, 9, 10, 11] {
            assert_eq!(caps[&c], 6, "cell {c}");
        }
        for c in [12u8, 13, 14, 15] {
            assert_eq!(caps[&c], 5, "cell {c}");
        }
        assert_eq!(l.entries(), 7u64.pow(7) * 6u64.pow(4));
        // goal 2^6 (anchor (0,2), cell 2): 32 and 16
        let l = MiddleLayout::new(MIDDLE_FORMATIONS[2].0, 2, 6).unwrap();
        let caps: HashMap<u8, u8> = l.caps().collect();
        assert_eq!((caps[&3], caps[&8], caps[&15]), (5, 5, 4));
    }

    /// The endgame table of the 4-4 block, anchor (1,0), goal 2^3 (an 8: under every
    /// middle-game table's 64), built here in a few milliseconds.
    fn endgame_4_4_goal_8() -> Arc<EndgameTables> {
        use crate::solver::tables::build::build_table;
        use crate::solver::tables::TableKey;
        let key = TableKey::new(Formation::new([4, 4, 0, 0]).unwrap(), 4, 3).unwrap();
        Arc::new(EndgameTables::new(vec![build_table(&key, &|_| {})]))
    }

    #[test]
    fn a_board_no_middle_table_covers_is_left_to_the_endgame_tables() {
        // the 4-4 block's anchor is an 8: the endgame table of goal 2^3 covers it
        let endgame = endgame_4_4_goal_8();
        let board = Board::from_values([
            [2048, 1024, 512, 256],
            [8, 16, 32, 64],
            [4, 2, 0, 0],
            [0, 0, 0, 2],
        ])
        .unwrap();
        let middle = Arc::new(MiddleTables::new());
        assert_eq!(middle.move_values(board), None);
        let alone = MiddleEval::new(middle.clone(), RowHeuristic::new());
        assert_eq!(alone.decide_exactly(board), None);
        let both = alone.with_endgame(Some(endgame.clone()));
        let want = endgame.move_values(board).expect("the 4-4 table covers it");
        assert_eq!(both.decide_exactly(board), Some(want));
        assert_eq!(middle.stats().computed.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn inside_the_search_a_covered_afterstate_is_the_heuristic_plus_the_weighted_chance() {
        use crate::solver::tables::Outcome;
        let endgame = endgame_4_4_goal_8();
        let middle = Arc::new(MiddleTables::new());
        let heuristic = RowHeuristic::new();
        let eval = MiddleEval::new(middle.clone(), heuristic).with_endgame(Some(endgame.clone()));
        // an afterstate of the 4-4 block, anchor 8 at (1,0): its chance from the table itself
        let covered = Board::from_values([
            [2048, 1024, 512, 256],
            [8, 16, 32, 64],
            [4, 2, 0, 0],
            [0, 0, 0, 0],
        ])
        .unwrap();
        let table = &endgame.tables()[0];
        let Outcome::Chance(p) = table.afterstate_value(covered.raw(), covered.raw()) else {
            panic!("the block is still and the anchor not yet merged");
        };
        assert!(p > 0.0 && p < 1.0, "{p}");
        let want = heuristic.evaluate(covered) + ENDGAME_WEIGHT_IN_SEARCH * p;
        assert_eq!(eval.exact(covered), Some(want));
        // a 4 in the block, under the anchor's 8: not covered, searched on
        let short = Board::from_values([
            [2048, 1024, 512, 256],
            [8, 16, 32, 4],
            [4, 2, 0, 0],
            [0, 0, 0, 0],
        ])
        .unwrap();
        assert_eq!(eval.exact(short), None);
        // without the endgame tables: searched on
        let alone = MiddleEval::new(middle.clone(), heuristic);
        assert_eq!(alone.exact(covered), None);
        assert_eq!(middle.stats().computed.load(Ordering::Relaxed), 0);
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

    #[test]
    fn a_table_with_larger_anchors_covers_a_block_above_its_goal() {
        let l = MiddleLayout::new(MIDDLE_FORMATIONS[0].0, 6, 7).unwrap();
        // anchor 2^9 at (1,2), the block above it; free tiles within the goal-7 caps
        let above = raw([[14, 13, 12, 1], [10, 11, 9, 6], [1, 0, 0, 0], [0, 0, 0, 0]]);
        assert!(!l.fits(above), "the anchor holds 2^9, not 2^7");
        let l = l.with_larger_anchors();
        assert!(l.covers_larger_anchors());
        assert!(l.fits(above));
        // a fixed tile below the anchor: the anchor is not the block's smallest
        let below = raw([[14, 13, 12, 1], [8, 11, 9, 6], [1, 0, 0, 0], [0, 0, 0, 0]]);
        assert!(!l.fits(below));
        // a 128 beside the anchor: the goal is made already (above its cap of 2^6)
        let made = raw([[14, 13, 12, 1], [10, 11, 9, 7], [1, 0, 0, 0], [0, 0, 0, 0]]);
        assert!(!l.fits(made));
        // the shared tables: the formations' top goals cover larger anchors, the others not
        let tables = MiddleTables::new();
        for t in tables.tables().iter() {
            let (f, g) = (t.layout().formation(), t.layout().goal());
            let top = MIDDLE_FORMATIONS.iter().find(|(m, _)| *m == f).unwrap().1;
            assert_eq!(
                t.layout().covers_larger_anchors(),
                g == top,
                "{}",
                t.layout().name()
            );
        }
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

    /// With no room at all (a limit of 0: nothing to drop) no new position is computed (a board
    /// that needs one is left to the search), and the values known still decide.
    #[test]
    fn past_the_memory_limit_only_known_values_decide() {
        // anchor 64 at (1,2); left takes row 2's 4 and 2 to columns 0 and 1, within their caps
        let board = Board::from_raw(raw([
            [12, 11, 10, 1],
            [7, 8, 6, 3],
            [0, 0, 2, 1],
            [0, 0, 0, 0],
        ]));
        let full = MiddleTables::new().with_memory_limit(0);
        assert_eq!(
            full.move_values(board),
            None,
            "no room for left's afterstate"
        );
        assert_eq!(full.memory(), 0);
        // the board of the hand-worked success needs no stored value: up makes the 64
        let made = Board::from_raw(raw([
            [12, 11, 10, 1],
            [7, 8, 6, 5],
            [0, 0, 0, 5],
            [0, 0, 0, 0],
        ]));
        let v = full
            .move_values(made)
            .expect("decided without a stored value");
        assert_eq!(v[Move::Up.index()], Some(1.0));
        let tables = MiddleTables::new();
        let known = tables.move_values(board).expect("computed");
        let left = known[Move::Left.index()].expect("left is legal");
        assert!(left > 0.0 && left < 1.0, "{left}");
        let memory = tables.memory();
        assert!(
            memory >= 2 * CHUNK_LEN as u64,
            "left's afterstate was stored"
        );
        let tables = tables.with_memory_limit(0);
        assert_eq!(
            tables.move_values(board),
            Some(known),
            "known values still decide"
        );
        assert_eq!(tables.memory(), memory);
    }

    /// A packed chunk, read from the layout of the tables' file (bit k % 8 of byte k / 8 set
    /// when entry k is computed, then the computed entries' words), gives every entry's stored
    /// word back: computed entries in runs, alone and at both ends of the chunk and of a 64-bit
    /// word. A bitmap that counts another number of words, or a word of 0, is refused (its size
    /// is checked with the tables' file: `middle_file`'s `save_then_load_gives_the_same_values`).
    #[test]
    fn a_packed_chunk_reads_every_entry_as_stored() {
        let computed =
            |k: usize| k.is_multiple_of(7) || (100..300).contains(&k) || k >= CHUNK_LEN - 65;
        let word = |k: usize| {
            if computed(k) {
                (k % 65_535) as u16 + 1
            } else {
                0
            }
        };
        let bitmap: Vec<u8> = (0..CHUNK_LEN / 8)
            .map(|b| (0..8).fold(0u8, |byte, i| byte | u8::from(computed(8 * b + i)) << i))
            .collect();
        let stored: Vec<u16> = (0..CHUNK_LEN).filter(|&k| computed(k)).map(word).collect();
        let packed = PackedChunk::from_bitmap(&bitmap, stored.clone().into()).unwrap();
        for k in 0..CHUNK_LEN {
            assert_eq!(packed.get(k), computed(k).then(|| word(k)), "entry {k}");
        }
        assert!(packed.unpacked().eq((0..CHUNK_LEN).map(word)));
        let none = PackedChunk::from_bitmap(&[0; CHUNK_LEN / 8], Box::new([])).unwrap();
        assert!((0..CHUNK_LEN).all(|k| none.get(k).is_none()));
        let short = stored[1..].to_vec().into();
        assert!(PackedChunk::from_bitmap(&bitmap, short).is_none());
        let mut zero = stored.clone();
        zero[5] = 0;
        assert!(PackedChunk::from_bitmap(&bitmap, zero.into()).is_none());
    }

    /// A new value in a packed chunk unpacks it whole: the packed values stay readable beside
    /// the new one, counted as one chunk held whole; packed again, the chunk answers every
    /// value from its new packed copy (three words, 2,566 bytes, in place of two, 2,564), and
    /// dropped, none.
    #[test]
    fn a_new_value_in_a_packed_chunk_unpacks_it() {
        let mut values = LazyValues::new(2 * CHUNK_LEN as u64);
        let mut bitmap = [0u8; CHUNK_LEN / 8];
        bitmap[0] = 0b101; // entries 0 and 2
        values.put_chunk(1, &bitmap, Box::new([7, 9])).unwrap();
        let base = CHUNK_LEN as u64;
        assert_eq!(values.get(base + 2, 1), Some(8));
        assert_eq!(values.get(base + 1, 1), None);
        let stats = MiddleStats::default();
        values.set(base + 1, 41, &stats, 1).unwrap();
        assert_eq!(stats.chunks.load(Ordering::Relaxed), 1);
        let read: Vec<_> = (0..3).map(|k| values.get(base + k, 1)).collect();
        assert_eq!(read, [Some(6), Some(41), Some(8)]);
        assert!(
            values.put_chunk(1, &bitmap, Box::new([7, 9])).is_none(),
            "there already"
        );
        assert_eq!(values.pack(1), (2_048 + 512 + 4, 2_048 + 512 + 6));
        assert!(!values.is_whole(1));
        let read: Vec<_> = (0..3).map(|k| values.get(base + k, 1)).collect();
        assert_eq!(read, [Some(6), Some(41), Some(8)]);
        assert_eq!(values.get(base + 3, 1), None);
        assert_eq!(values.pack(1), (0, 0), "nothing whole to pack");
        assert_eq!(values.drop_chunk(1), (false, 2_048 + 512 + 6));
        assert!((0..3).all(|k| values.get(base + k, 1).is_none()));
    }

    /// The bytes of the chunks of `tables` packed: the bitmap, the ranks and 2 a computed value.
    fn packed_size(tables: &MiddleTables) -> u64 {
        let t = tables.tables();
        let chunks = t.iter().flat_map(|t| t.chunks());
        chunks
            .map(|(_, w)| 2048 + 512 + 2 * w.iter().filter(|&&w| w != 0).count() as u64)
            .sum()
    }

    /// The tables of the block of four and two (4-2), goal 2^6, anchors (0,3) and (1,1) alone:
    /// small games, so that a test of the memory limit runs in a second.
    fn four_two_tables() -> MiddleTables {
        let formation = MIDDLE_FORMATIONS[1].0;
        let tables = [3, 5]
            .map(|a| MiddleTable::new(MiddleLayout::new(formation, a, 6).unwrap()))
            .into();
        MiddleTables {
            tables: RwLock::new(tables),
            ..MiddleTables::new()
        }
    }

    /// A 64 at (1,1) below a 256 and at (0,3) beside a 512 (4-2 tables of two anchors), and a
    /// 64 at (0,3) beside a 512 with three free tiles: two boards whose values take hundreds of
    /// chunks whole.
    fn two_boards() -> (Board, Board) {
        let first = Board::from_raw(raw([
            [12, 11, 10, 9],
            [8, 6, 1, 2],
            [2, 3, 1, 4],
            [1, 2, 3, 1],
        ]));
        let second = Board::from_raw(raw([
            [12, 11, 10, 6],
            [9, 8, 0, 0],
            [0, 0, 1, 0],
            [0, 0, 0, 0],
        ]));
        (first, second)
    }

    /// A board's move values and the memory they take, whole and packed, in tables of their own.
    fn alone(board: Board) -> ([Option<f32>; 4], u64, u64) {
        let t = four_two_tables();
        let v = t.move_values(board).expect("covered");
        (v, t.memory(), packed_size(&t))
    }

    /// The positions computed so far.
    fn computed(tables: &MiddleTables) -> u64 {
        tables.stats().computed.load(Ordering::Relaxed)
    }

    /// Past the memory limit, the chunks not used by the decision being made are packed to
    /// make room: a board that needs more than the room left is still decided, with the values
    /// a process with no limit gives it, and the first board is decided again at once from its
    /// packed values, nothing computed again.
    #[test]
    fn past_the_memory_limit_chunks_are_packed_to_make_room() {
        let (first, second) = two_boards();
        let (first_values, first_memory, first_packed) = alone(first);
        let (second_values, second_memory, _) = alone(second);
        assert!(
            first_packed * 4 < first_memory,
            "{first_packed} {first_memory}"
        );
        // room for either board's values, not for both whole
        let limit = first_memory.max(second_memory) * 4 / EVICTION_TARGET + CHUNK_BYTES;
        assert!(limit < first_memory + second_memory, "{limit}");
        let tables = four_two_tables().with_memory_limit(limit);
        assert_eq!(tables.move_values(first), Some(first_values));
        assert_eq!(tables.move_values(second), Some(second_values));
        let stats = tables.stats();
        assert!(stats.packed.load(Ordering::Relaxed) > 0);
        assert_eq!(stats.evicted.load(Ordering::Relaxed), 0);
        assert!(tables.memory() <= limit, "{} > {limit}", tables.memory());
        let known = computed(&tables);
        assert_eq!(tables.move_values(first), Some(first_values));
        assert_eq!(computed(&tables), known, "read from the packed chunks");
        // without eviction nothing is packed: the second board finds no room and is left to
        // the search
        let keeping = four_two_tables()
            .with_memory_limit(limit)
            .without_eviction();
        assert_eq!(keeping.move_values(first), Some(first_values));
        assert_eq!(keeping.move_values(second), None);
    }

    /// When packing is not enough, the chunks least recently used are dropped: of two boards'
    /// values, with room for the second's packed and not for both, the first's go; the second
    /// board is still decided from its packed values, and the first is left to the search until
    /// [`EVICTION_INTERVAL`] decisions have passed.
    #[test]
    fn past_the_memory_limit_the_chunks_least_recently_used_are_dropped() {
        let (first, second) = two_boards();
        let (first_values, _, first_packed) = alone(first);
        let (second_values, _, second_packed) = alone(second);
        let mut tables = four_two_tables();
        assert_eq!(tables.move_values(first), Some(first_values));
        assert_eq!(tables.move_values(second), Some(second_values));
        // a quarter more than the second board's packed values, within three quarters
        let target = second_packed + second_packed / 4;
        assert!(target < first_packed + second_packed, "{target}");
        tables.stats.set_limit(target / EVICTION_TARGET * 4);
        let now = tables.stats.epoch.fetch_add(1, Ordering::Relaxed) + 1;
        assert!(tables.make_room(now));
        let stats = tables.stats();
        assert!(stats.evicted.load(Ordering::Relaxed) > 0);
        assert!(stats.in_use() <= target, "{} > {target}", stats.in_use());
        assert!(tables.memory() <= stats.limit);
        let known = computed(&tables);
        assert_eq!(tables.move_values(second), Some(second_values));
        assert_eq!(
            computed(&tables),
            known,
            "the second board's values were kept"
        );
        assert_eq!(
            tables.move_values(first),
            None,
            "no eviction before the interval"
        );
        // given room again, its values are computed again, the same
        tables.stats.set_limit(u64::MAX);
        tables
            .stats
            .epoch
            .fetch_add(EVICTION_INTERVAL, Ordering::Relaxed);
        assert_eq!(tables.move_values(first), Some(first_values));
    }

    /// Making room for a decision keeps whole every chunk used by it or by a later one (another
    /// game's, begun while it waited for the lock), and a read by an earlier decision does not
    /// make a chunk look older than it is: of the first board's values (decision 1) and the
    /// second's (decision 3, then read again by decision 2), with no room at all, making room
    /// for decision 2 drops the first's and keeps the second's whole.
    #[test]
    fn making_room_keeps_the_chunks_of_the_decision_and_later_ones() {
        let (first, second) = two_boards();
        let (second_values, _, _) = alone(second);
        let mut tables = four_two_tables();
        let marked = |tables: &MiddleTables, from: u32| -> Vec<(usize, usize)> {
            let t = tables.tables();
            let uses = t.iter().enumerate().flat_map(|(i, t)| t.values.uses(i));
            uses.filter(|u| u.0 >= from).map(|u| (u.1, u.2)).collect()
        };
        assert!(tables.best_cover(first, 1).0.is_some());
        assert_eq!(tables.best_cover(second, 3).0, Some(second_values));
        let later = marked(&tables, 3);
        assert!(!later.is_empty());
        assert_eq!(tables.best_cover(second, 2).0, Some(second_values));
        assert_eq!(marked(&tables, 3), later, "still marked used in decision 3");
        tables.stats.set_limit(CHUNK_BYTES);
        tables.make_room(2);
        assert!(tables.stats().evicted.load(Ordering::Relaxed) > 0);
        let whole = |&(i, n): &(usize, usize)| tables.tables()[i].values.is_whole(n);
        assert!(later.iter().all(whole));
        assert_eq!(marked(&tables, 1), later, "every other chunk dropped");
    }

    /// The saved chunks no decision has used are dropped one by one, only as many as the room
    /// needs: of four, with room for three, one goes (a decision's chunks go together).
    #[test]
    fn saved_chunks_not_used_yet_are_dropped_one_by_one() {
        let mut tables = four_two_tables();
        let mut bitmap = [0u8; CHUNK_LEN / 8];
        bitmap[0] = 1;
        for n in 0..4 {
            let table = &mut tables.tables_mut()[0];
            table.put_chunk(n, &bitmap, Box::new([5])).unwrap();
        }
        tables.count_loaded();
        let each = 2_048 + 512 + 2;
        assert_eq!(tables.memory(), 4 * each);
        // three quarters of the limit hold three of them
        tables.stats.set_limit(4 * each);
        tables.make_room(1);
        assert_eq!(tables.stats().evicted.load(Ordering::Relaxed), 1);
        assert_eq!(tables.memory(), 3 * each);
        assert_eq!(tables.tables()[0].stored_chunks(), 3);
    }

    /// The values' room under a resident cap is the cap less what the process holds besides
    /// the values, never more than the limit.
    #[test]
    fn the_values_room_is_the_cap_less_the_rest_of_the_process() {
        let gb = 1u64 << 30;
        // 1.5 GB besides 4 GB of values, under a 7.5 GB cap: 6 GB of values
        assert_eq!(
            room_under_cap(7 * gb, 15 * gb / 2, 11 * gb / 2, 4 * gb),
            6 * gb
        );
        // 1 GB besides: the limit, 6 GB
        assert_eq!(room_under_cap(6 * gb, 15 * gb / 2, 5 * gb, 4 * gb), 6 * gb);
        // the rest alone past the cap: nothing
        assert_eq!(room_under_cap(6 * gb, 2 * gb, 5 * gb, gb), 0);
    }

    /// The resident memory read is within the largest the system reports for the process
    /// (read after it, so it is at least as large).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_resident_memory_is_within_the_peak() {
        let resident = resident_bytes().expect("Linux tells");
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage writes a whole rusage into the pointer given, which is valid.
        let peak = unsafe {
            assert_eq!(libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()), 0);
            usage.assume_init().ru_maxrss as u64 * 1024
        };
        assert!(resident > 1 << 20, "{resident}");
        assert!(resident <= peak, "{resident} > {peak}");
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
        let all = tables.tables();
        let formation = MIDDLE_FORMATIONS[0].0;
        let table = all
            .iter()
            .find(|t| t.layout().formation() == formation && t.layout().anchor() == 6)
            .filter(|t| t.layout().goal() == 6)
            .unwrap();
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
                            table.position_value(r, &stats, 1).unwrap(),
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
