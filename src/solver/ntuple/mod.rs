//! A learned evaluation: an n-tuple network, its TD(0) trainer ([`td`]) and its weights file
//! ([`mod@file`]).
//!
//! A network is a few *tuples* of cells; each tuple owns a table of `16^k` weights (`k` cells,
//! one 4-bit exponent each), looked up by the exponents the tuple sees. The table is shared by
//! the tuple's 8 images under the board's symmetries (4 rotations × mirror), so the value of a
//! board is the sum of `8 × tuples` weights, and the 8 symmetric boards all get the same value.
//! The value of an *afterstate* (the board after a move, before the spawn) estimates the points
//! still to be scored from it under the network's own greedy play (Szubert & Jaśkowski 2014).
//!
//! The field's standard network is [`Spec::STANDARD_4X6`]: four 6-cell tuples (Yeh et al. 2016,
//! TDL2048's `4x6patt`), 4 × 16^6 weights = 256 MiB of `f32`.
//!
//! This module imports only [`crate::engine`]. Weights are `AtomicU32` holding `f32` bits, read
//! and written with `Relaxed` loads and stores (plain moves on x86), so two training threads can
//! share one network without locks, Hogwild-style (Recht et al. 2011): a lost update now and then
//! costs nothing measurable, while per-thread copies would double 256 MiB and their merging would
//! stall both threads.
//!
//! ```
//! use bot2048::engine::Board;
//! use bot2048::solver::ntuple::{Network, Spec};
//! let net = Network::new("0123,4567".parse::<Spec>().unwrap(), 800.0);
//! // Every board starts at the initial value: 2 tuples × 8 images × 50 points.
//! let b = Board::from_values([[2, 4, 0, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
//! assert_eq!(net.value(b), 800.0);
//! ```
use crate::engine::{max_nibble, transpose, Board, Move};
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

pub mod eval;
pub mod file;
pub mod td;

pub use eval::{built_points, load_shared, NTupleEval};

pub use file::{LoadError, SaveError, WeightsFormat};

/// The environment variable that names the network file to use instead of [`default_path`]'s.
pub const NETWORK_ENV: &str = "BOT2048_NETWORK";

/// Where the bot's own trained network lives: `networks/ntuple-4x6.bin` in the source tree this
/// binary was built from (the shipping format, [`WeightsFormat::SHIP`]), unless the environment
/// variable [`NETWORK_ENV`] names another file.
pub fn default_path() -> std::path::PathBuf {
    match std::env::var_os(NETWORK_ENV) {
        Some(p) if !p.is_empty() => p.into(),
        _ => concat!(env!("CARGO_MANIFEST_DIR"), "/networks/ntuple-4x6.bin").into(),
    }
}

/// The most cells a tuple may have: 16^7 weights = 1 GiB of `f32` for one tuple.
pub const MAX_TUPLE_CELLS: usize = 7;

/// The most tuples a network may have.
pub const MAX_TUPLES: usize = 16;

/// The most weights a network may have in all: 2^30 (4 GiB of `f32`), e.g. four 7-cell tuples.
pub const MAX_WEIGHTS: usize = 1 << 30;

/// The number of board symmetries each tuple is looked up under.
pub const SYMMETRIES: usize = 8;

/// The most weights one board looks up: [`MAX_TUPLES`] × [`SYMMETRIES`].
pub const MAX_FEATURES: usize = MAX_TUPLES * SYMMETRIES;

/// Why a network spec could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// The spec names no tuple.
    #[error("a network spec lists at least one tuple (e.g. `4x6`, or `012345,456789`)")]
    Empty,
    /// More than [`MAX_TUPLES`] tuples.
    #[error("a network has at most {MAX_TUPLES} tuples, the spec lists {0}")]
    TooManyTuples(usize),
    /// A tuple longer than [`MAX_TUPLE_CELLS`].
    #[error("tuple {tuple:?} has {len} cells; a tuple has 1 to {MAX_TUPLE_CELLS}")]
    TooLong {
        /// The tuple as written.
        tuple: String,
        /// Its number of cells.
        len: usize,
    },
    /// A character that is not a cell digit 0-9, a-f.
    #[error("{ch:?} in tuple {tuple:?} is not a cell (0-9, a-f = cells 0..15 in reading order)")]
    BadCell {
        /// The tuple as written.
        tuple: String,
        /// The offending character.
        ch: char,
    },
    /// More than [`MAX_WEIGHTS`] weights in all.
    #[error("the tuples need {0} weights; a network has at most {MAX_WEIGHTS} (4 GiB)")]
    TooLarge(usize),
    /// A stage boundary that is not a tile from 4 to 32768, or not above the one before it.
    #[error(
        "stage boundary {0:?}: each `@TILE` is a power of two from 4 to 32768, above the one \
         before it (e.g. `4x6@16384`)"
    )]
    BadStage(String),
    /// A network cannot be promoted to this spec (see [`Network::promoted`]).
    #[error(
        "a network of spec {from} cannot become one of spec {to}: only a one-stage network \
         becomes a staged one, with the same tuples"
    )]
    NotPromotable {
        /// The network's spec.
        from: String,
        /// The spec asked for.
        to: String,
    },
    /// The same cell twice in one tuple.
    #[error("tuple {tuple:?} names cell {cell:x} twice")]
    RepeatedCell {
        /// The tuple as written.
        tuple: String,
        /// The repeated cell index.
        cell: u8,
    },
}

/// The shape of a network: its tuples, each a list of cells `4 * row + col` (reading order).
///
/// Text form: tuples separated by commas (or spaces), each a string of hex digits, one per cell,
/// e.g. `012345,456789,012456,45689a`; the alias `4x6` is [`Spec::STANDARD_4X6`]. The order of
/// the cells in a tuple fixes the order of the nibbles in its table index, so `012` and `210` are
/// different specs (of equal strength) whose weight files are not interchangeable.
///
/// **Stages** (multi-stage TD, Yeh et al. 2016; Jaśkowski 2018's weight promotion): `@TILE`
/// after the tuples, once per boundary (`4x6@16384`), gives the network one more set of tables
/// for the boards whose largest tile is at least `TILE`: a board looks up only its own stage's
/// tables, so the endgame (a 16384 on the board) learns its own weights instead of sharing them
/// with the opening. No `@` is one stage, as before.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Spec {
    tuples: Vec<Vec<u8>>,
    /// The stage boundaries as log2 exponents of the largest tile, ascending (empty: one stage).
    stages: Vec<u8>,
}

impl Spec {
    /// The text form of the standard network (Yeh et al. 2016; Jaśkowski 2018; TDL2048
    /// `4x6patt`): two straight-ish 6-cell tuples and two 2×3 rectangles.
    pub const STANDARD_4X6: &'static str = "012345,456789,012456,45689a";

    /// The standard 4 × 6-tuple network ([`Spec::STANDARD_4X6`]).
    pub fn standard() -> Spec {
        Spec::STANDARD_4X6
            .parse()
            .expect("the standard spec parses")
    }

    /// Builds a spec from cell lists (cells `4 * row + col`, 0..16).
    ///
    /// # Errors
    /// As [`Spec::from_str`]: no tuple, too many or too long tuples, a cell ≥ 16, a repeated
    /// cell, more than [`MAX_WEIGHTS`] weights.
    pub fn new(tuples: Vec<Vec<u8>>) -> Result<Spec, SpecError> {
        if tuples.is_empty() {
            return Err(SpecError::Empty);
        }
        if tuples.len() > MAX_TUPLES {
            return Err(SpecError::TooManyTuples(tuples.len()));
        }
        for t in &tuples {
            let text = || t.iter().map(|c| format!("{c:x}")).collect::<String>();
            if t.is_empty() || t.len() > MAX_TUPLE_CELLS {
                return Err(SpecError::TooLong {
                    tuple: text(),
                    len: t.len(),
                });
            }
            for (i, &c) in t.iter().enumerate() {
                if c >= 16 {
                    return Err(SpecError::BadCell {
                        tuple: text(),
                        ch: char::from_digit(c as u32 % 36, 36).unwrap_or('?'),
                    });
                }
                if t[..i].contains(&c) {
                    return Err(SpecError::RepeatedCell {
                        tuple: text(),
                        cell: c,
                    });
                }
            }
        }
        // one stage; with_stages checks the size
        Spec {
            tuples,
            stages: Vec::new(),
        }
        .with_stages(&[])
    }

    /// The same tuples with stage boundaries `tiles` (tile values, e.g. `[16384]` for two
    /// stages: largest tile below 16384, and 16384 or more).
    ///
    /// # Errors
    /// [`SpecError::BadStage`] for a tile that is not a power of two from 4 to 32768 or not above
    /// the one before it; [`SpecError::TooLarge`] when the stages' weights pass [`MAX_WEIGHTS`].
    pub fn with_stages(self, tiles: &[u32]) -> Result<Spec, SpecError> {
        let mut stages = Vec::with_capacity(tiles.len());
        for &tile in tiles {
            let exp = tile.trailing_zeros() as u8;
            let ok = tile.is_power_of_two() && (2..=15).contains(&exp);
            if !ok || stages.last().is_some_and(|&last| exp <= last) {
                return Err(SpecError::BadStage(tile.to_string()));
            }
            stages.push(exp);
        }
        let spec = Spec { stages, ..self };
        match spec.weight_count() {
            n if n > MAX_WEIGHTS => Err(SpecError::TooLarge(n)),
            _ => Ok(spec),
        }
    }

    /// The tuples, each a list of cells `4 * row + col`.
    pub fn tuples(&self) -> &[Vec<u8>] {
        &self.tuples
    }

    /// The stage boundaries as log2 exponents of the largest tile (14 = 16384), ascending; empty
    /// for a one-stage network.
    pub fn stage_exponents(&self) -> &[u8] {
        &self.stages
    }

    /// The number of stages: one more than the boundaries.
    pub fn stage_count(&self) -> usize {
        self.stages.len() + 1
    }

    /// The spec with the same tuples and one stage.
    pub fn single_stage(&self) -> Spec {
        Spec {
            tuples: self.tuples.clone(),
            stages: Vec::new(),
        }
    }

    /// The stage of a raw board: how many boundaries its largest exponent reaches (0 with none).
    #[inline(always)]
    pub fn stage_of(&self, x: u64) -> usize {
        if self.stages.is_empty() {
            return 0;
        }
        let max = max_nibble(x);
        self.stages.iter().take_while(|&&e| max >= e).count()
    }

    /// The length of each table in the flat weight array, in order: stage by stage, tuple by
    /// tuple (`16^k` for a `k`-cell tuple).
    pub fn table_lens(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.stage_count()).flat_map(|_| self.tuples.iter().map(|t| 1usize << (4 * t.len())))
    }

    /// The number of tables: stages × tuples.
    pub fn table_count(&self) -> usize {
        self.stage_count() * self.tuples.len()
    }

    /// The weights of one stage: the sum of `16^k` over the tuples.
    pub fn stage_weights(&self) -> usize {
        self.tuples.iter().map(|t| 1usize << (4 * t.len())).sum()
    }

    /// Weights looked up per board: 8 × the number of tuples.
    pub fn features(&self) -> usize {
        SYMMETRIES * self.tuples.len()
    }

    /// The total number of weights: stages × the sum of `16^k` over the tuples (4 × 16^6 =
    /// 67,108,864 for the standard one-stage network).
    pub fn weight_count(&self) -> usize {
        self.stage_count() * self.stage_weights()
    }
}

impl fmt::Display for Spec {
    /// The canonical text form: hex cells, tuples joined by commas (`012345,456789,…`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.tuples.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            for c in t {
                write!(f, "{c:x}")?;
            }
        }
        for &e in &self.stages {
            write!(f, "@{}", 1u32 << e)?;
        }
        Ok(())
    }
}

impl FromStr for Spec {
    type Err = SpecError;

    /// Parses `4x6` or a list of hex-digit tuples separated by commas or spaces (any case),
    /// then any stage boundaries, `@TILE` each (`4x6@16384`).
    fn from_str(s: &str) -> Result<Spec, SpecError> {
        let mut parts = s.trim().split('@');
        let s = parts.next().unwrap_or("").trim();
        let tiles = parts
            .map(|t| {
                t.trim()
                    .parse::<u32>()
                    .map_err(|_| SpecError::BadStage(t.trim().into()))
            })
            .collect::<Result<Vec<u32>, SpecError>>()?;
        let tuples = if s.eq_ignore_ascii_case("4x6") {
            Spec::STANDARD_4X6
        } else {
            s
        };
        Spec::parse_tuples(tuples)?.with_stages(&tiles)
    }
}

impl Spec {
    /// The tuples part of the text form (no `@`).
    fn parse_tuples(s: &str) -> Result<Spec, SpecError> {
        let mut tuples = Vec::new();
        for word in s.split([',', ' ']).filter(|w| !w.is_empty()) {
            let mut cells = Vec::new();
            for ch in word.chars() {
                let cell = ch.to_digit(16).ok_or_else(|| SpecError::BadCell {
                    tuple: word.to_string(),
                    ch,
                })?;
                cells.push(cell as u8);
            }
            tuples.push(cells);
        }
        Spec::new(tuples)
    }
}

/// One run of consecutive cells of a tuple: `((x >> src) & mask) << dst` is its part of the index.
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    src: u32,
    mask: u64,
    dst: u32,
}

/// A tuple ready for lookups: its runs of consecutive cells and where its table starts.
#[derive(Clone, Debug)]
struct Lookup {
    runs: [Run; MAX_TUPLE_CELLS],
    run_count: usize,
    offset: usize,
}

impl Lookup {
    /// Cells `c_0 … c_{k-1}` give index `Σ nibble(c_j) << 4j`; consecutive cells (`c_{j+1} =
    /// c_j + 1`) are read in one shift and mask (the standard tuples need one or two).
    fn new(cells: &[u8], offset: usize) -> Lookup {
        let mut runs = [Run::default(); MAX_TUPLE_CELLS];
        let mut run_count = 0;
        let mut j = 0;
        while j < cells.len() {
            let mut n = 1;
            while j + n < cells.len() && cells[j + n] == cells[j] + n as u8 {
                n += 1;
            }
            runs[run_count] = Run {
                src: 4 * cells[j] as u32,
                mask: (1u64 << (4 * n)) - 1,
                dst: 4 * j as u32,
            };
            run_count += 1;
            j += n;
        }
        Lookup {
            runs,
            run_count,
            offset,
        }
    }

    /// The position in the flat weight array of the entry board `x` selects.
    #[inline(always)]
    fn index(&self, x: u64) -> usize {
        let mut i = 0u64;
        for r in &self.runs[..self.run_count] {
            i |= ((x >> r.src) & r.mask) << r.dst;
        }
        self.offset + i as usize
    }
}

/// Reverses the columns of a raw board (cell (r, c) goes to (r, 3 − c)).
#[inline(always)]
pub const fn mirror(x: u64) -> u64 {
    ((x & 0x000F_000F_000F_000F) << 12)
        | ((x & 0x00F0_00F0_00F0_00F0) << 4)
        | ((x >> 4) & 0x00F0_00F0_00F0_00F0)
        | ((x >> 12) & 0x000F_000F_000F_000F)
}

/// Reverses the rows of a raw board (cell (r, c) goes to (3 − r, c)).
#[inline(always)]
pub const fn flip(x: u64) -> u64 {
    let y = x.rotate_left(32);
    ((y & 0x0000_FFFF_0000_FFFF) << 16) | ((y >> 16) & 0x0000_FFFF_0000_FFFF)
}

/// The 8 images of a raw board under the symmetries of the square: identity, mirror, flip,
/// rotation by 180°, and those four after a transpose.
#[inline(always)]
pub fn symmetries(x: u64) -> [u64; SYMMETRIES] {
    let t = transpose(x);
    let f = flip(x);
    let tf = flip(t);
    [x, mirror(x), f, mirror(f), t, mirror(t), tf, mirror(tf)]
}

/// An empty vector with room for `count` weights, whose memory is asked to be backed by huge
/// pages where the system allows it (Linux transparent huge pages in `madvise` mode).
///
/// Lookups land all over 256 MiB; with 4 KiB pages nearly every one also misses the TLB. 2 MiB
/// pages cut those misses: measured here, training went from 0.76 to 1.0 M updates/s on one
/// thread (4 × 6 tuples, the first 3,000 games). Elsewhere, or if refused, nothing changes.
pub(crate) fn weight_vec(count: usize) -> Vec<AtomicU32> {
    let v: Vec<AtomicU32> = Vec::with_capacity(count);
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = v.as_ptr() as usize;
        let len = count * std::mem::size_of::<AtomicU32>();
        let aligned = start.next_multiple_of(PAGE);
        if len > aligned - start + PAGE {
            let span = (len - (aligned - start)) / PAGE * PAGE;
            // SAFETY: madvise only gives the kernel a hint about pages of this allocation, which
            // we own and have not touched yet; it reads and writes no memory, and on failure
            // (e.g. no THP support) it returns an error that we ignore.
            unsafe {
                libc::madvise(aligned as *mut libc::c_void, span, libc::MADV_HUGEPAGE);
            }
        }
    }
    v
}

/// An n-tuple network: a [`Spec`] and its weights, in points.
///
/// `value(afterstate)` is the sum of the weights the board's `8 × tuples` lookups select; it
/// estimates the points still to come after that afterstate. Tiles of 65536 and 131072 look up
/// as 32768 (the 4-bit cap of [`Board::raw`]).
///
/// `Sync`: several threads may read and train one network at once (see the module doc).
pub struct Network {
    spec: Spec,
    /// The tuples' lookups into stage 0's tables; stage `k` adds `k × stage_weights`.
    lookups: Vec<Lookup>,
    stage_weights: usize,
    weights: Vec<AtomicU32>,
    games: AtomicU64,
    note: String,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Network")
            .field("spec", &self.spec.to_string())
            .field("weights", &self.weights.len())
            .field("games", &self.games())
            .finish()
    }
}

impl Network {
    /// A network of shape `spec` in which every board is worth `initial` points: each weight is
    /// `initial / features`. `0.0` is plain TD; a large value (Guei et al. 2022 use 320,000 for
    /// 4 × 6 tuples) is *optimistic initialisation*: boards not yet seen look good, so greedy
    /// play goes looking for them.
    ///
    /// Memory: 4 bytes per weight ([`Spec::weight_count`]), 256 MiB for the standard network.
    pub fn new(spec: Spec, initial: f32) -> Network {
        let w = initial / spec.features() as f32;
        let count = spec.weight_count();
        let mut weights = weight_vec(count);
        weights.resize_with(count, || AtomicU32::new(w.to_bits()));
        Network::from_parts(spec, weights, 0)
    }

    /// Assembles a network; `weights.len()` must be `spec.weight_count()` (checked by callers).
    fn from_parts(spec: Spec, weights: Vec<AtomicU32>, games: u64) -> Network {
        debug_assert_eq!(weights.len(), spec.weight_count());
        let mut offset = 0;
        let lookups = spec
            .tuples
            .iter()
            .map(|t| {
                let l = Lookup::new(t, offset);
                offset += 1 << (4 * t.len());
                l
            })
            .collect();
        Network {
            stage_weights: spec.stage_weights(),
            spec,
            lookups,
            weights,
            games: AtomicU64::new(games),
            note: String::new(),
        }
    }

    /// Weight promotion (Jaśkowski 2018): this one-stage network as a network of `spec`, the
    /// same tuples in more stages, every stage starting as a copy of these weights. It values
    /// every board exactly as this one does; further training then lets each stage's tables
    /// go their own way. The game count and the note are kept.
    ///
    /// Memory: a second network of `spec.weight_count()` weights (4 bytes each).
    ///
    /// # Errors
    /// [`SpecError::NotPromotable`] unless this network has one stage and `spec` has the same
    /// tuples (in the same order).
    pub fn promoted(&self, spec: &Spec) -> Result<Network, SpecError> {
        let weights = promote_table(&self.spec, spec, &self.weights)?;
        let mut net = Network::from_parts(spec.clone(), weights, self.games());
        net.note = self.note.clone();
        Ok(net)
    }

    /// The network's shape.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Training games this network has learnt from (kept in its file, so a resumed run counts on).
    pub fn games(&self) -> u64 {
        self.games.load(Ordering::Relaxed)
    }

    /// The note of the file the network was loaded from (how it was trained); empty for a new one.
    pub fn note(&self) -> &str {
        &self.note
    }

    /// Sets the count of training games (the trainer does this).
    pub fn set_games(&self, games: u64) {
        self.games.store(games, Ordering::Relaxed);
    }

    /// The number of weights ([`Spec::weight_count`]).
    pub fn weight_count(&self) -> usize {
        self.weights.len()
    }

    /// Weight `i` of the flat array (stage by stage, and within a stage the tuple tables one
    /// after another in spec order, [`Spec::table_lens`]; within a table, entry `Σ e_j · 16^j`
    /// for exponents `e_j` at the tuple's cells). `None` past the end.
    pub fn weight(&self, i: usize) -> Option<f32> {
        self.weights
            .get(i)
            .map(|w| f32::from_bits(w.load(Ordering::Relaxed)))
    }

    /// Sets weight `i` (see [`Network::weight`]); returns false (and does nothing) past the end.
    pub fn set_weight(&self, i: usize, value: f32) -> bool {
        match self.weights.get(i) {
            Some(w) => {
                w.store(value.to_bits(), Ordering::Relaxed);
                true
            }
            None => false,
        }
    }

    #[inline(always)]
    fn w(&self, i: usize) -> f32 {
        f32::from_bits(self.weights[i].load(Ordering::Relaxed))
    }

    /// The value of an afterstate, in points: the sum of its `8 × tuples` weights.
    #[inline]
    pub fn value(&self, afterstate: Board) -> f32 {
        self.value_raw(afterstate.raw())
    }

    /// [`Network::value`] of a raw board (sixteen 4-bit exponents, [`Board::raw`]).
    #[inline]
    pub fn value_raw(&self, x: u64) -> f32 {
        let images = symmetries(x);
        let stage = self.stage_offset(x);
        let mut v = 0.0;
        for l in &self.lookups {
            for &b in &images {
                v += self.w(stage + l.index(b));
            }
        }
        v
    }

    /// Where the tables of board `x`'s stage start in the flat weight array (0 for stage 0, and
    /// for every board of a one-stage network). The 8 images of a board share its largest tile,
    /// so they share its stage.
    #[inline(always)]
    fn stage_offset(&self, x: u64) -> usize {
        self.spec.stage_of(x) * self.stage_weights
    }

    /// Writes the flat indices of the weights board `x` selects into `out` (at least 8 × tuples
    /// long), tuple by tuple, each over the 8 images; returns how many (8 × tuples).
    #[inline]
    fn indices(&self, x: u64, out: &mut [usize]) -> usize {
        let images = symmetries(x);
        let stage = self.stage_offset(x);
        let mut n = 0;
        for l in &self.lookups {
            for &b in &images {
                out[n] = stage + l.index(b);
                n += 1;
            }
        }
        n
    }

    /// One TD step on afterstate `x`: moves its value toward `target` by `rate` (the learning
    /// rate per weight) times the error, adding `rate × (target − value)` to each of its weights.
    /// Returns the error before the step and the value after it.
    #[inline]
    pub fn td_step(&self, x: u64, target: f32, rate: f32) -> (f32, f32) {
        let mut idx = [0usize; MAX_FEATURES];
        let n = self.indices(x, &mut idx);
        let idx = &idx[..n];
        let before: f32 = idx.iter().map(|&i| self.w(i)).sum();
        let error = target - before;
        let delta = rate * error;
        for &i in idx {
            let w = &self.weights[i];
            w.store(
                (f32::from_bits(w.load(Ordering::Relaxed)) + delta).to_bits(),
                Ordering::Relaxed,
            );
        }
        let after: f32 = idx.iter().map(|&i| self.w(i)).sum();
        (error, after)
    }

    /// The greedy move on `board` by this network: the legal move of highest merge score plus
    /// value of its afterstate, with that afterstate, its score and the sum; `None` when no move
    /// is legal. Ties go to the first in [`Move::ALL`] order.
    ///
    /// All the lookups of the (up to) four afterstates are computed first and then read in one
    /// tight loop, so that more cache misses are in flight at once (the reads dominate: ~64 % of
    /// training time is in this function). Measured on a busy 2-core machine, 3,000 training
    /// games from a 36k-game checkpoint: best of 3, 6.1 s → 5.8 s of CPU. The sums are the same
    /// as [`Network::value`]'s, in the same order, so training is unchanged.
    #[inline]
    pub fn best_move(&self, board: Board) -> Option<Choice> {
        let f = self.spec.features();
        let mut idx = [0usize; 4 * MAX_FEATURES];
        let mut cand = [(Move::Up, Board::EMPTY, 0u64); 4];
        let mut n = 0;
        for m in Move::ALL {
            if let Some((after, score)) = board.apply(m) {
                self.indices(after.raw(), &mut idx[n * f..(n + 1) * f]);
                cand[n] = (m, after, score);
                n += 1;
            }
        }
        let mut best: Option<Choice> = None;
        for (k, &(mv, afterstate, score)) in cand[..n].iter().enumerate() {
            let mut v = 0.0f32;
            for &i in &idx[k * f..(k + 1) * f] {
                v += self.w(i);
            }
            let total = score as f32 + v;
            if best.is_none_or(|b| total > b.total) {
                best = Some(Choice {
                    mv,
                    afterstate,
                    score,
                    total,
                });
            }
        }
        best
    }
}

/// `table` (a one-stage network's weights, or a table as long, such as a TC accumulator) copied
/// into every stage of `to`: see [`Network::promoted`].
///
/// # Errors
/// [`SpecError::NotPromotable`] unless `from` has one stage and `to` the same tuples.
pub(crate) fn promote_table(
    from: &Spec,
    to: &Spec,
    table: &[AtomicU32],
) -> Result<Vec<AtomicU32>, SpecError> {
    if from.stage_count() != 1 || from.tuples != to.tuples || table.len() != from.weight_count() {
        return Err(SpecError::NotPromotable {
            from: from.to_string(),
            to: to.to_string(),
        });
    }
    let mut out = weight_vec(to.weight_count());
    for _ in 0..to.stage_count() {
        out.extend(
            table
                .iter()
                .map(|w| AtomicU32::new(w.load(Ordering::Relaxed))),
        );
    }
    Ok(out)
}

/// A move chosen by [`Network::best_move`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// The move.
    pub mv: Move,
    /// The board after it, before the spawn.
    pub afterstate: Board,
    /// Its merge score, in points.
    pub score: u64,
    /// `score` + the network's value of `afterstate`, in points.
    pub total: f32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The image of a board under symmetry `s` (0..8), cell by cell, by rows and columns.
    fn image_slow(b: Board, s: usize) -> Board {
        let g = b.to_exponents();
        let mut out = [[0u8; 4]; 4];
        for (r, row) in out.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                // Read the source cell of (r, c) for: transpose?, flip rows?, mirror columns?
                let (mut rr, mut cc) = (r, c);
                if s & 1 == 1 {
                    cc = 3 - cc;
                }
                if s & 2 == 2 {
                    rr = 3 - rr;
                }
                if s & 4 == 4 {
                    std::mem::swap(&mut rr, &mut cc);
                }
                *cell = g[rr][cc];
            }
        }
        Board::from_exponents(out).unwrap()
    }

    fn random_board(rng: &mut ChaCha8Rng) -> Board {
        let mut g = [[0u8; 4]; 4];
        for row in &mut g {
            for cell in row.iter_mut() {
                *cell = rng.random_range(0..16);
            }
        }
        Board::from_exponents(g).unwrap()
    }

    #[test]
    fn spec_parses_and_prints() {
        let s: Spec = "4x6".parse().unwrap();
        assert_eq!(s.to_string(), "012345,456789,012456,45689a");
        assert_eq!(s.features(), 32);
        assert_eq!(s.weight_count(), 4 * 16_777_216);
        assert_eq!(
            "0123 4567".parse::<Spec>().unwrap().tuples(),
            &[vec![0, 1, 2, 3], vec![4, 5, 6, 7]]
        );
        assert_eq!("".parse::<Spec>(), Err(SpecError::Empty));
        assert!(matches!(
            "01g".parse::<Spec>(),
            Err(SpecError::BadCell { ch: 'g', .. })
        ));
        assert!(matches!(
            "0110".parse::<Spec>(),
            Err(SpecError::RepeatedCell { cell: 1, .. })
        ));
        assert!(matches!(
            "01234567".parse::<Spec>(),
            Err(SpecError::TooLong { len: 8, .. })
        ));
        // Four 7-cell tuples are the most: 4 × 2^28 weights.
        assert!("0123456,1234567,2345678,3456789".parse::<Spec>().is_ok());
        assert_eq!(
            "0123456,1234567,2345678,3456789,456789a".parse::<Spec>(),
            Err(SpecError::TooLarge(5 << 28))
        );
    }

    #[test]
    fn symmetries_match_cell_by_cell_images() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let b = random_board(&mut rng);
            let fast: Vec<u64> = symmetries(b.raw()).to_vec();
            let mut slow: Vec<u64> = (0..8).map(|s| image_slow(b, s).raw()).collect();
            let mut fast_sorted = fast.clone();
            fast_sorted.sort();
            slow.sort();
            assert_eq!(fast_sorted, slow);
        }
        // The 8 images of an asymmetric board are distinct.
        let b = Board::from_hex("0123456789abcdef").unwrap();
        let mut imgs = symmetries(b.raw()).to_vec();
        imgs.sort();
        imgs.dedup();
        assert_eq!(imgs.len(), 8);
        assert_eq!(
            mirror(b.raw()),
            Board::from_hex("32107654ba98fedc").unwrap().raw()
        );
        assert_eq!(
            flip(b.raw()),
            Board::from_hex("cdef89ab45670123").unwrap().raw()
        );
    }

    #[test]
    fn lookup_index_reads_cells_in_tuple_order() {
        // Tuple 0,1,2,4,5,6 on the board 0123456789abcdef (cell i holds exponent i):
        // nibbles 0,1,2,4,5,6 -> index 0x654210.
        let l = Lookup::new(&[0, 1, 2, 4, 5, 6], 0);
        assert_eq!(l.run_count, 2);
        let b = Board::from_hex("0123456789abcdef").unwrap();
        assert_eq!(l.index(b.raw()), 0x654210);
        // An unordered tuple 5,0,f: nibble 0 = cell 5, 1 = cell 0, 2 = cell 15.
        let l = Lookup::new(&[5, 0, 15], 100);
        assert_eq!(l.index(b.raw()), 100 + 0xf05);
    }

    #[test]
    fn the_eight_symmetric_boards_get_equal_values() {
        let net = Network::new(Spec::standard(), 0.0);
        // Integer weights, so every order of summation gives the same f32 exactly.
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut boards = Vec::new();
        for _ in 0..50 {
            boards.push(random_board(&mut rng));
        }
        for b in &boards {
            let mut idx = [0; MAX_FEATURES];
            let n = net.indices(b.raw(), &mut idx);
            for &i in &idx[..n] {
                net.set_weight(i, rng.random_range(-1000..1000) as f32);
            }
        }
        for &b in &boards {
            let v = net.value(b);
            assert_ne!(v, 0.0);
            for s in 0..8 {
                assert_eq!(net.value(image_slow(b, s)), v, "{b:?} image {s}");
            }
        }
    }

    #[test]
    fn td_step_on_a_hand_worked_example() {
        // One tuple of one cell (cell 0): 16 weights, looked up at the board's four corners
        // (each corner is cell 0 of two of the 8 images).
        let net = Network::new("0".parse().unwrap(), 0.0);
        assert_eq!(net.weight_count(), 16);
        // Board: a 2 (exp 1) top-left, a 4 (exp 2) top-right, corners below empty.
        let b = Board::from_values([[2, 0, 0, 4], [0; 4], [0; 4], [0; 4]]).unwrap();
        // Lookups: w[1] twice, w[2] twice, w[0] four times.
        net.set_weight(0, 1.0);
        net.set_weight(1, 10.0);
        net.set_weight(2, 100.0);
        assert_eq!(net.value(b), 4.0 + 20.0 + 200.0);
        // Target 324, rate 0.125: error = 324 - 224 = 100, each lookup adds 12.5,
        // so w0 += 4 * 12.5 = 50, w1 += 25, w2 += 25; value = 4*51 + 2*35 + 2*125 = 524.
        let (err, after) = net.td_step(b.raw(), 324.0, 0.125);
        assert_eq!(err, 100.0);
        assert_eq!(net.weight(0), Some(51.0));
        assert_eq!(net.weight(1), Some(35.0));
        assert_eq!(net.weight(2), Some(125.0));
        assert_eq!(after, 524.0);
        assert_eq!(net.value(b), 524.0);
    }

    #[test]
    fn best_move_adds_merge_score_to_value() {
        let net = Network::new("0".parse().unwrap(), 0.0);
        // Zero weights: the value is 0 everywhere, so the merge score decides.
        let b = Board::from_values([[2, 2, 0, 0], [4, 0, 0, 0], [0; 4], [0; 4]]).unwrap();
        let c = net.best_move(b).unwrap();
        // Up changes nothing; Down merges nothing; Left and Right both merge the 2s (4 points),
        // and Left comes first in Move::ALL.
        assert_eq!(c.mv, Move::Left);
        assert_eq!(c.score, 4);
        assert_eq!(c.total, 4.0);
        let dead =
            Board::from_values([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]).unwrap();
        assert_eq!(net.best_move(dead), None);
    }

    #[test]
    fn staged_specs_parse_print_and_size() {
        let s: Spec = "4x6@16384".parse().unwrap();
        assert_eq!(s.to_string(), "012345,456789,012456,45689a@16384");
        assert_eq!(s.stage_exponents(), &[14]);
        assert_eq!(s.stage_count(), 2);
        assert_eq!(s.features(), 32);
        assert_eq!(s.weight_count(), 2 * 4 * 16_777_216);
        assert_eq!(s.table_count(), 8);
        assert_eq!(s.single_stage(), "4x6".parse().unwrap());
        let t: Spec = "0123,4567@8192@32768".parse().unwrap();
        assert_eq!(t.to_string(), "0123,4567@8192@32768");
        assert_eq!(t.table_lens().collect::<Vec<_>>(), vec![65536; 6]);
        for bad in [
            "4x6@16000",
            "4x6@2",
            "4x6@65536",
            "4x6@16384@8192",
            "4x6@",
            "4x6@x",
        ] {
            assert!(
                matches!(bad.parse::<Spec>(), Err(SpecError::BadStage(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_board_uses_its_own_stage_tables() {
        // One one-cell tuple (cell 0), two stages split at 16384: weights 0..16 for boards
        // whose largest tile is below 16384, 16..32 for the others.
        let net = Network::new("0@16384".parse().unwrap(), 0.0);
        assert_eq!(net.weight_count(), 32);
        net.set_weight(0, 1.0); // stage 0, empty corner
        net.set_weight(16, 1000.0); // stage 1, empty corner
        net.set_weight(16 + 14, 100.0); // stage 1, a 16384 in a corner
        let early = Board::from_values([[8192, 0, 0, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
        let late = Board::from_values([[16384, 0, 0, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
        let middle = Board::from_values([[0; 4], [0, 16384, 0, 0], [0; 4], [0; 4]]).unwrap();
        // 8 lookups each: the 8192's corner twice (weight 13 = 0), empty corners six times.
        assert_eq!(net.value(early), 6.0);
        // The 16384 in a corner: twice weight 30, six times weight 16.
        assert_eq!(net.value(late), 200.0 + 6000.0);
        // A 16384 off the corners: stage 1 all the same, 8 empty-corner lookups.
        assert_eq!(net.value(middle), 8000.0);
        // A TD step on a stage-1 board moves stage-1 weights only.
        net.td_step(late.raw(), 0.0, 0.125);
        assert_eq!(net.weight(0), Some(1.0));
        assert_eq!(net.value(early), 6.0);
        assert!(net.value(late) < 6200.0);
    }

    #[test]
    fn a_promoted_network_values_every_board_as_before() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let one = Network::new("012,4567".parse().unwrap(), 0.0);
        for i in 0..one.weight_count() {
            one.set_weight(i, rng.random_range(-50.0..50.0));
        }
        let staged: Spec = "012,4567@2048@16384".parse().unwrap();
        let three = one.promoted(&staged).unwrap();
        assert_eq!(three.spec(), &staged);
        assert_eq!(three.weight_count(), 3 * one.weight_count());
        for _ in 0..300 {
            let b = random_board(&mut rng);
            assert_eq!(three.value(b), one.value(b), "{:016x}", b.raw());
        }
        // Only one-stage networks of the same tuples promote.
        let other: Spec = "0123@16384".parse().unwrap();
        assert!(matches!(
            one.promoted(&other),
            Err(SpecError::NotPromotable { .. })
        ));
        assert!(matches!(
            three.promoted(&staged),
            Err(SpecError::NotPromotable { .. })
        ));
    }
}
