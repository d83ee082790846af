//! Vision: finds the 2048 grid in a screenshot and reads every cell, through a calibration
//! profile.
//!
//! Pipeline (one file a stage): [`grid`] finds the lattice of cells drawn in the profile's board
//! colour (or, under a semi-transparent overlay, in that colour shaded by the overlay, which also
//! gives the "game over" / "won" status); [`cells`] reads each cell from its background colour and
//! its digits ([`glyph`] templates), never guessing: a cell below [`MIN_CONFIDENCE`] is reported
//! with a [`CellProblem`]. What a read gives ([`Reading`], [`ReadError`]) is in `reading.rs`;
//! this file holds the [`Reader`]'s policy: it remembers the grid between frames and then only
//! samples the known cells (after checking the gaps are still where they were), keeps a confirmed
//! grid as an anchor, and tries every profile when the grid is lost. Where no profile reads the
//! whole board it reads without one (`freeform.rs`: digits alone, against every built-in's
//! templates), and where no grid with gaps is found it looks for a board drawn without gaps
//! ([`gapless`]). [`calibrate::Learner`] makes profiles from (image, known board) pairs;
//! [`Reader::learn`] learns a tile's look while playing, from one frame on which the engine
//! knows the tile ([`calibrate::tile_lesson`]); [`annotate`] draws what was read.
//!
//! ```no_run
//! use bot2048::vision::{Profile, ProfileChoice, Reader};
//! let img = image::open("shot.png").unwrap().to_rgba8();
//! let mut reader = Reader::new(ProfileChoice::Given(Profile::load("web-2048").unwrap()));
//! let reading = reader.read(&img).unwrap();
//! println!("{:?}", reading.values());
//! ```
pub mod annotate;
pub mod calibrate;
pub mod cells;
pub mod colour;
mod freeform;
pub mod gapless;
pub mod glyph;
pub mod grid;
pub mod io;
pub mod labels;
mod overlay;
pub mod profile;
mod reading;

pub use calibrate::{LessonRefused, TileLesson};
pub use cells::Growing;
pub use colour::Rgb;
pub use grid::{CellRect, GridRect};
pub use profile::{
    resolve, AnimationLook, ButtonLook, DialogKeyLook, GameLook, Profile, ProfileError, Resolved,
};
pub use reading::{describe, BoardStatus, CellIssue, CellProblem, CellRead, ReadError, Reading};

use cells::{read_cell, read_growing, CellOutcome};
use glyph::TemplateSet;
use image::RgbaImage;

/// Confidence (0..=1) below which a cell is unreadable.
pub const MIN_CONFIDENCE: f32 = 0.5;
/// Fewest cells that must read as tiles (not empty) on a board found without gaps: a real board
/// always holds at least two, and a pattern of plain rectangles none.
pub const MIN_GAPLESS_TILES: usize = 2;
/// Added to a profile's name in [`Reading::profile`] when some cells were read without the
/// profile (see [`Reader::read`]): `web-2048+none`.
pub const FILLED_SUFFIX: &str = "+none";
/// Common colours of a frame tried as a board under a layer a profile never saw.
const LAYERED_BOARD_CANDIDATES: usize = 10;
/// Share of sampled gap points that must still show the board colour for a remembered grid
/// to be reused.
const MIN_TRACK_SHARE: f32 = 0.6;

/// Which profile to read with.
#[derive(Clone, Debug)]
pub enum ProfileChoice {
    /// Try every built-in profile and keep the one that reads the most cells.
    Auto,
    /// Try these profiles and keep the one that reads the most cells, as `Auto` does (what
    /// [`profile::resolve`] gives for `auto`: the built-ins plus the user's own profiles).
    Among(Vec<Profile>),
    /// This profile only.
    Given(Profile),
}

/// A profile ready for reading: its templates (completed from the built-ins for digits it
/// lacks) and its board colours with and without overlays.
#[derive(Clone, Debug)]
struct Prepared {
    profile: Profile,
    templates: TemplateSet,
    variants: Vec<(Rgb, Option<usize>)>,
}

impl Prepared {
    fn new(profile: Profile, fallback: &TemplateSet) -> Prepared {
        let mut templates =
            TemplateSet::from_templates(profile.glyphs.iter().flat_map(|g| &g.digit));
        templates.fill_from(fallback);
        let variants = profile.board_variants();
        Prepared {
            profile,
            templates,
            variants,
        }
    }

    fn board_tolerance(&self) -> u8 {
        self.profile.board.as_ref().map_or(8, |b| b.tolerance)
    }
}

/// A grid found with a profile, and its reading.
struct ProfileFind {
    /// Index of the profile in [`Reader::profiles`].
    profile: usize,
    /// (cells read, total confidence, grid fit): what makes one find better than another.
    key: (usize, f32, f32),
    /// The reading of the grid.
    reading: Reading,
}

/// Where the board was last found.
#[derive(Clone, Copy, Debug)]
enum Tracking {
    Lost,
    Acquired {
        grid: GridRect,
        profile: usize,
        size: (u32, u32),
    },
    /// Found without a profile, in this board colour.
    Freeform {
        grid: GridRect,
        board: Rgb,
        size: (u32, u32),
    },
    /// Found without gaps between its cells ([`gapless`]): every frame is searched again, and
    /// the grid kept while the same lattice is found.
    Gapless {
        grid: GridRect,
        size: (u32, u32),
    },
}

/// Reads boards from images; remembers the grid once found, so later frames of the same window
/// only sample the known cells.
#[derive(Clone, Debug)]
pub struct Reader {
    profiles: Vec<Prepared>,
    tracking: Tracking,
    /// A grid the caller confirmed ([`Reader::anchor_grid`]), tried again when tracking is lost.
    anchor: Option<Tracking>,
    /// Whether the last read took cells from a read without a profile
    /// ([`Reader::fill_without_profile`]).
    filled: bool,
    /// Whether reads on the remembered grid take the cells the profile cannot read from a read
    /// without a profile: set when a read that did so was confirmed ([`Reader::anchor_grid`]).
    fill_tracked: bool,
    /// Whether reads on a profile's grid take that help until the next confirmed read: set by
    /// [`Reader::forget_grid`].
    fill_until_anchor: bool,
    /// Whether to read without a profile when no profile reads the whole board (auto only).
    freeform: bool,
    /// Digit templates of every built-in profile (for reading without a profile), and the
    /// digits learned while playing ([`Reader::learn`]).
    all_templates: TemplateSet,
    /// What was learned while playing, once anything was.
    learning: Option<Learning>,
}

/// What a reader learned while playing ([`Reader::learn`]).
#[derive(Clone, Debug)]
struct Learning {
    /// The profile learned into, to be saved: a copy of the tracked profile, or a profile made
    /// for a game found without one ([`calibrate::blank_profile`]).
    profile: Profile,
    /// The name of the profile it started from (`None`: the game was read without one).
    from: Option<String>,
    /// The digits whose look was learned (`digits[d]`).
    digits: [bool; 10],
    /// Every tile look learned from a cell the reader could not read, in order.
    lessons: Vec<TileLesson>,
}

/// A cell whose look was not learned: where, what the engine says it is, and why not.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("row {row}, column {col} (a {value} by the engine): {why}")]
pub struct LearnRefused {
    /// Row, 0 = top.
    pub row: usize,
    /// Column, 0 = left.
    pub col: usize,
    /// The value the engine knows.
    pub value: u32,
    /// Why its look was not learned.
    pub why: LessonRefused,
}

/// Name of the profile a reader learns into when the game was found without one (the caller
/// names the saved file).
pub const LEARNED_NAME: &str = "learned";

/// Templates of every built-in profile (used for digits a profile has not learned).
fn builtin_templates() -> TemplateSet {
    let builtins = Profile::builtins().unwrap_or_default();
    let mut set = TemplateSet::default();
    for p in &builtins {
        let t = TemplateSet::from_templates(p.glyphs.iter().flat_map(|g| &g.digit));
        for d in 0..10 {
            set.by_digit[d].extend(t.by_digit[d].iter().cloned());
        }
    }
    set
}

impl Reader {
    /// A reader for one profile, or for the best-fitting built-in one.
    pub fn new(choice: ProfileChoice) -> Reader {
        let fallback = builtin_templates();
        let freeform = matches!(choice, ProfileChoice::Auto | ProfileChoice::Among(_));
        let profiles = match choice {
            ProfileChoice::Given(p) => vec![Prepared::new(p, &fallback)],
            ProfileChoice::Among(list) => list
                .into_iter()
                .map(|p| Prepared::new(p, &fallback))
                .collect(),
            ProfileChoice::Auto => Profile::builtins()
                .unwrap_or_default()
                .into_iter()
                .map(|p| Prepared::new(p, &fallback))
                .collect(),
        };
        Reader {
            profiles,
            tracking: Tracking::Lost,
            anchor: None,
            filled: false,
            fill_tracked: false,
            fill_until_anchor: false,
            freeform,
            all_templates: fallback,
            learning: None,
        }
    }

    /// Learns the looks of tiles the engine knows and this reader could not read, on the
    /// remembered grid of `img`, for the rest of the run: `cells` are (row, column, value) of
    /// such tiles, `board` the whole board the frame shows (rows of values, 0 = empty: the
    /// engine's afterstate plus the new tile read). Each cell must look like a tile of its value
    /// ([`calibrate::tile_lesson`]: a plain colour unlike the empty cell's, the value's number of
    /// digit-like shapes, nothing over them); then its colours and the glyphs of the digits not
    /// learned yet go into the profile of the remembered grid and into the templates read
    /// without a profile, and into the profile that [`Reader::learned_profile`] gives to save.
    /// All the cells are learned, or none. Returns the lessons (none for no cells).
    ///
    /// # Errors
    /// [`LearnRefused`] for the first cell that does not fit (or [`LessonRefused::NoGrid`],
    /// [`LessonRefused::NoEmptyColour`] for the first cell); nothing is learned then.
    pub fn learn(
        &mut self,
        img: &RgbaImage,
        board: &[Vec<u32>],
        cells: &[(usize, usize, u32)],
    ) -> Result<Vec<TileLesson>, LearnRefused> {
        let Some(&first) = cells.first() else {
            return Ok(Vec::new());
        };
        let refuse = |(row, col, value): (usize, usize, u32), why| LearnRefused {
            row,
            col,
            value,
            why,
        };
        let (grid, profile, board_colour) = match self.tracking {
            Tracking::Acquired { grid, profile, .. } => {
                let p = &self.profiles[profile].profile;
                (grid, Some(profile), p.board.as_ref().map(|b| b.colour))
            }
            Tracking::Freeform { grid, board, .. } => (grid, None, Some(board)),
            Tracking::Gapless { grid, .. } => (grid, None, None),
            Tracking::Lost => return Err(refuse(first, LessonRefused::NoGrid)),
        };
        let empty = match profile.and_then(|i| self.profiles[i].profile.cells.as_ref()) {
            Some(c) => Some(c.empty),
            None => empty_colour(img, &grid, board),
        }
        .ok_or_else(|| refuse(first, LessonRefused::NoEmptyColour))?;
        let mut lessons = Vec::with_capacity(cells.len());
        for &(row, col, value) in cells {
            if row >= grid.rows || col >= grid.cols {
                let why = LessonRefused::OutsideBoard {
                    rows: grid.rows,
                    cols: grid.cols,
                };
                return Err(refuse((row, col, value), why));
            }
            let rect = grid.cell(row, col);
            let lesson = calibrate::tile_lesson(img, &rect, (row, col), value, empty)
                .map_err(|why| refuse((row, col, value), why))?;
            lessons.push(lesson);
        }
        let learning = self.learning.get_or_insert_with(|| Learning {
            profile: match profile {
                Some(i) => self.profiles[i].profile.clone(),
                None => {
                    let mut p = calibrate::blank_profile(
                        LEARNED_NAME,
                        board_colour.unwrap_or(Rgb::BLACK),
                        empty,
                    );
                    // a board without gaps has no board colour to search for
                    if board_colour.is_none() {
                        p.board = None;
                    }
                    p
                }
            },
            from: profile.map(|i| self.profiles[i].profile.name.clone()),
            digits: [false; 10],
            lessons: Vec::new(),
        });
        for lesson in &lessons {
            let new = learning.digits.map(|known| !known);
            let added = lesson.teach(&mut learning.profile, &new);
            if let Some(i) = profile {
                let p = &mut self.profiles[i];
                lesson.teach(&mut p.profile, &new);
                for (d, g) in lesson.glyphs.iter().filter(|(d, _)| added.contains(d)) {
                    p.templates.by_digit[usize::from(*d)].push(g.levels.clone());
                }
            }
            for (d, g) in lesson.glyphs.iter().filter(|(d, _)| added.contains(d)) {
                self.all_templates.by_digit[usize::from(*d)].push(g.levels.clone());
                learning.digits[usize::from(*d)] = true;
            }
            learning.lessons.push(lesson.clone());
        }
        Ok(lessons)
    }

    /// Once [`Reader::learn`] has learned anything: adds to the profile to save the looks of
    /// the tiles of `board` (the whole board `img` shows, confirmed by the engine: rows of values,
    /// 0 = empty) whose value it has no look for yet, and the digits it has no template for, so
    /// that the saved profile reads the game's other tiles too (the opening's 2s and 4s). Tiles
    /// that do not look plain are passed over; the reader's own reads do not change. Returns the
    /// values added.
    pub fn learn_known(&mut self, img: &RgbaImage, board: &[Vec<u32>]) -> Vec<u32> {
        let Some(learning) = self.learning.as_mut() else {
            return Vec::new();
        };
        let grid = match self.tracking {
            Tracking::Acquired { grid, .. }
            | Tracking::Freeform { grid, .. }
            | Tracking::Gapless { grid, .. } => grid,
            Tracking::Lost => return Vec::new(),
        };
        let Some(empty) = learning.profile.cells.as_ref().map(|c| c.empty) else {
            return Vec::new();
        };
        let mut added = Vec::new();
        for (row, values) in board.iter().enumerate().take(grid.rows) {
            for (col, &value) in values.iter().enumerate().take(grid.cols) {
                let p = &learning.profile;
                if value == 0 || p.tiles.iter().any(|t| t.value == value) || added.contains(&value)
                {
                    continue;
                }
                let rect = grid.cell(row, col);
                let Ok(lesson) = calibrate::tile_lesson(img, &rect, (row, col), value, empty)
                else {
                    continue;
                };
                let mut new = [true; 10];
                for t in p.glyphs.iter().flat_map(|g| &g.digit) {
                    new[usize::from(t.digit.min(9))] = false;
                }
                lesson.teach(&mut learning.profile, &new);
                added.push(value);
            }
        }
        added
    }

    /// The profile learned while playing ([`Reader::learn`]), to save for the next run: the
    /// profile the game was read with plus what was learned, or a new one for a game read
    /// without a profile; `None` when nothing was learned.
    pub fn learned_profile(&self) -> Option<&Profile> {
        self.learning.as_ref().map(|l| &l.profile)
    }

    /// The name of the profile learning started from (`None`: nothing learned, or the game was
    /// read without a profile).
    pub fn learned_from(&self) -> Option<&str> {
        self.learning.as_ref().and_then(|l| l.from.as_deref())
    }

    /// Every tile look learned from a cell this reader could not read, in order.
    pub fn lessons(&self) -> &[TileLesson] {
        self.learning.as_ref().map_or(&[], |l| &l.lessons)
    }

    /// The board colours this reader searches an image for, with the profile name and the
    /// tolerance (8-bit levels): each profile's board colour, and that colour under each overlay.
    pub fn board_colours(&self) -> Vec<(String, Rgb, u8)> {
        self.profiles
            .iter()
            .flat_map(|p| {
                p.variants
                    .iter()
                    .map(|v| (p.profile.name.clone(), v.0, p.board_tolerance()))
            })
            .collect()
    }

    /// Names of the profiles this reader tries, in order.
    pub fn profile_names(&self) -> Vec<String> {
        self.profiles
            .iter()
            .map(|p| p.profile.name.clone())
            .collect()
    }

    /// Forgets the remembered grid: the next read searches the whole image (after trying the
    /// anchor, if any: see [`Reader::anchor_grid`]). Until a read is confirmed again
    /// ([`Reader::anchor_grid`]), reads on a profile's grid take the cells the profile cannot
    /// read from a read without a profile (see [`Reader::read`]).
    pub fn forget_grid(&mut self) {
        self.tracking = Tracking::Lost;
        self.fill_until_anchor = true;
    }

    /// Keeps the remembered grid as the anchor: the grid of a read the caller has confirmed (in
    /// `play`, a read that fits the mirror). When the remembered grid is later lost (a merge's
    /// pop covers the gaps, or [`Reader::forget_grid`]) or replaced by one of another shape, or by
    /// a grid found without a profile while the anchor has one, each read first tries the anchor,
    /// and uses it when its gaps show the board colour. A grid found without a profile does not
    /// replace an anchor that has one.
    /// (A fresh search on the web game once found 3 rows of a 4×4 board: the glow of a bottom
    /// row of 256 to 2048 tiles tints the gaps around it.) A grid found without a profile at
    /// another place than the anchor ([`grid::GridRect::moved_onto`]: the board moved in its
    /// window) carries the anchor's grid there, profile and all.
    pub fn anchor_grid(&mut self) {
        // a confirmed read that needed cells read without the profile: the profile cannot read
        // this game's digits alone (another font), so reads on its grid take that help from now on
        if self.filled && matches!(self.tracking, Tracking::Acquired { .. }) {
            self.fill_tracked = true;
        }
        self.fill_until_anchor = false;
        match (self.tracking, self.anchor) {
            (Tracking::Lost, _) => {}
            // a profile's grid is not given up for one read without a profile; but a read
            // confirmed at another place means the board moved in its window (issue 24): the
            // profile's grid moves with it, or the next reads would try it where the board was
            (
                Tracking::Freeform { grid, size, .. },
                Some(Tracking::Acquired {
                    grid: anchored,
                    profile,
                    ..
                }),
            ) => {
                if let Some(moved) = anchored.moved_onto(&grid) {
                    self.anchor = Some(Tracking::Acquired {
                        grid: moved,
                        profile,
                        size,
                    });
                }
            }
            (t, _) => self.anchor = Some(t),
        }
    }

    /// Reads the board in `img` as on a first frame: the remembered grid and the anchor are
    /// dropped first, so the whole image is searched. For a board that moved in its window
    /// (a browser's infobar opened or closed above the page, the window was resized): a grid
    /// remembered where the board *was* can still show the board colour in its gaps (a board
    /// moved by one whole cell puts its own gaps under most of them), and the anchor is tried
    /// before any search ([`Reader::anchor_grid`]). The grid found is remembered; it becomes the
    /// anchor once the caller confirms a read on it ([`Reader::anchor_grid`]). To try a search
    /// without losing the anchor, call it on a clone.
    ///
    /// # Errors
    /// As [`Reader::read`]: [`ReadError::NoBoard`] when no grid is found.
    pub fn read_afresh(&mut self, img: &RgbaImage) -> Result<Reading, ReadError> {
        self.anchor = None;
        self.tracking = Tracking::Lost;
        self.read(img)
    }

    /// The reading of `img` on the remembered grid `t`, when the frame has the same size and
    /// the grid's gaps still show the board colour.
    /// With `fill`, the cells the profile cannot read are read again without a profile
    /// ([`Reader::fill_without_profile`]).
    fn read_tracked(&self, img: &RgbaImage, t: Tracking, fill: bool) -> Option<Reading> {
        match t {
            Tracking::Acquired {
                grid,
                profile,
                size,
            } if size == img.dimensions() => {
                let p = &self.profiles[profile];
                verify_grid(img, &grid, p).map(|variant| {
                    let reading = read_cells(img, grid, p, variant);
                    if fill {
                        self.fill_without_profile(img, reading)
                    } else {
                        reading
                    }
                })
            }
            Tracking::Freeform { grid, board, size }
                if size == img.dimensions() && verify_freeform(img, &grid, board) =>
            {
                Some(self.read_freeform(img, grid))
            }
            Tracking::Gapless { grid, size } if size == img.dimensions() => {
                match self.search_gapless(img)? {
                    Ok((reading, found)) if found == grid => Some(reading),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The remembered grid, if any.
    pub fn tracked_grid(&self) -> Option<GridRect> {
        match self.tracking {
            Tracking::Acquired { grid, .. }
            | Tracking::Freeform { grid, .. }
            | Tracking::Gapless { grid, .. } => Some(grid),
            Tracking::Lost => None,
        }
    }

    /// Whether the profile of the remembered grid lets a new tile be read while it grows in
    /// ([`AnimationLook::early_spawn`]): `false` with no grid, or one found without a profile.
    pub fn reads_growing(&self) -> bool {
        match self.tracking {
            Tracking::Acquired { profile, .. } => self.profiles[profile]
                .profile
                .animation
                .as_ref()
                .is_some_and(|a| a.early_spawn),
            _ => false,
        }
    }

    /// The profile's [`AnimationLook::slide_ms`] for the remembered grid: how long after the
    /// first changed frame no tile slides any more, ms; `None` with no grid, no profile or no such
    /// setting.
    pub fn slide_ms(&self) -> Option<u32> {
        match self.tracking {
            Tracking::Acquired { profile, .. } => {
                self.profiles[profile].profile.animation.as_ref()?.slide_ms
            }
            _ => None,
        }
    }

    /// The profile's "Keep going" button ([`GameLook::keep_going`]) for the remembered grid;
    /// `None` with no grid, no profile or no such button.
    pub fn keep_going(&self) -> Option<&ButtonLook> {
        match self.tracking {
            Tracking::Acquired { profile, .. } => self.profiles[profile]
                .profile
                .game
                .as_ref()?
                .keep_going
                .as_ref(),
            _ => None,
        }
    }

    /// The game descriptions ([`Profile::game`]) of this reader's profiles, then of the built-in
    /// ones: what is known of the games whatever profile reads the board (the window checks
    /// start before the first read).
    pub fn games(&self) -> Vec<GameLook> {
        let builtins = Profile::builtins().unwrap_or_default();
        self.profiles
            .iter()
            .map(|p| &p.profile)
            .chain(&builtins)
            .filter_map(|p| p.game.as_deref().cloned())
            .collect()
    }

    /// The first of [`Reader::games`] whose main window is the window titled `title` of the app
    /// `class` ([`GameLook::owns_window`]).
    pub fn game_of_window(&self, title: &str, class: &str) -> Option<GameLook> {
        self.games()
            .into_iter()
            .find(|g| g.owns_window(title, class))
    }

    /// Reads cell `(row, col)` of the remembered grid in `img` as a new 2 or 4 still fading and
    /// growing in over the empty cell: the colour of its centre, off the empty colour, must lie
    /// between the empty colour and exactly one of the two tile colours, told apart with margin
    /// (see [`Growing`]). `None` when [`Reader::reads_growing`] is false, the profile lacks the
    /// empty, 2 or 4 colour, the cell is outside the grid, or the cell shows no such tile (yet).
    /// Call it after [`Reader::read`] on the same image, for a cell that read otherwise.
    pub fn growing_tile(&self, img: &RgbaImage, row: usize, col: usize) -> Option<Growing> {
        if !self.reads_growing() {
            return None;
        }
        let Tracking::Acquired { grid, profile, .. } = self.tracking else {
            return None;
        };
        if row >= grid.rows || col >= grid.cols {
            return None;
        }
        let p = &self.profiles[profile].profile;
        let empty = p.cells.as_ref()?.empty;
        let bg = |v: u32| p.tiles.iter().find(|t| t.value == v).map(|t| t.background);
        let candidates = [(2, bg(2)?), (4, bg(4)?)];
        read_growing(
            img,
            &grid.cell(row, col),
            empty,
            candidates,
            p.cell_tolerance(),
        )
    }

    /// Reads the board in `img`. Uses the remembered grid when its gaps still show the board
    /// colour; otherwise searches the whole image (and remembers what it finds).
    ///
    /// Never worse than no profile (with `auto`): after [`Reader::forget_grid`] (in play: a read
    /// that disagreed with the mirror or was unreadable) until the next confirmed read, a
    /// profile's read of its grid takes the cells it cannot read from a read without a profile
    /// on the same grid (only cells of a tile colour of the profile, and only one of that
    /// colour's values); once such a read is confirmed ([`Reader::anchor_grid`]), every read on
    /// the profile's grid does. A search that finds no whole board with a profile reads without
    /// one, as before.
    ///
    /// # Errors
    /// [`ReadError::NoBoard`] when no grid is found. Unreadable cells are not an error here: they
    /// are in [`Reading::issues`] with status [`BoardStatus::Unreadable`] (see
    /// [`Reading::into_values`]).
    pub fn read(&mut self, img: &RgbaImage) -> Result<Reading, ReadError> {
        let reading = self.read_board(img);
        self.filled = matches!(&reading, Ok(r) if r.profile.ends_with(FILLED_SUFFIX));
        reading
    }

    /// [`Reader::read`], without keeping whether cells were read without the profile: the
    /// anchor, then the remembered grid, then a search with every profile, without one, and for
    /// a board without gaps.
    fn read_board(&mut self, img: &RgbaImage) -> Result<Reading, ReadError> {
        if let Some(reading) = self.read_anchor(img) {
            return Ok(reading);
        }
        // after the grid was forgotten (in play: a read that disagreed with the mirror or was
        // unreadable) until a read is confirmed, or for good once a read that needed it was, a
        // profile that cannot read a cell is helped by a read without a profile
        let fill = self.fill_tracked || self.fill_until_anchor;
        if let Some(reading) = self.read_tracked(img, self.tracking, fill) {
            return Ok(reading);
        }
        self.tracking = Tracking::Lost;
        let best = self.search_profiles(img);
        let complete = best.as_ref().is_some_and(|b| b.reading.issues.is_empty());
        if self.freeform && !complete {
            if let Some(reading) = self.search_freeform(img, best.as_ref()) {
                return Ok(reading);
            }
        }
        if best.is_none() {
            if let Some(found) = self.read_gapless(img) {
                return found;
            }
        }
        match best {
            Some(found) => {
                let i = found.profile;
                tracing::debug!(profile = %self.profiles[i].profile.name, "grid found");
                self.tracking = Tracking::Acquired {
                    grid: found.reading.grid,
                    profile: i,
                    size: img.dimensions(),
                };
                Ok(found.reading)
            }
            None => Err(self.no_board()),
        }
    }

    /// The reading on the anchor, when the remembered grid has another shape, or was found
    /// without a profile where the anchor has one (a frame inside an animation can read better
    /// without one: the game's own profile and its animation look would then be lost for the
    /// rest of the game). Tracks the anchor again when it reads.
    fn read_anchor(&mut self, img: &RgbaImage) -> Option<Reading> {
        let anchor = self.anchor?;
        let shape = |t: Tracking| match t {
            Tracking::Acquired { grid, .. }
            | Tracking::Freeform { grid, .. }
            | Tracking::Gapless { grid, .. } => Some((grid.rows, grid.cols)),
            Tracking::Lost => None,
        };
        let profiled = |t: Tracking| matches!(t, Tracking::Acquired { .. });
        if shape(self.tracking) == shape(anchor) && (!profiled(anchor) || profiled(self.tracking)) {
            return None;
        }
        let fill = self.fill_tracked || self.fill_until_anchor;
        let reading = self.read_tracked(img, anchor, fill)?;
        self.tracking = anchor;
        Some(reading)
    }

    /// The best reading of a grid found with a profile: most cells read, then highest total
    /// confidence, then best grid fit. When no profile finds its board colours in the frame,
    /// each is tried under a layer it never saw ([`overlay`]): a profile learned from plain
    /// screenshots reads its game's "Game over" and "You win" screens.
    fn search_profiles(&self, img: &RgbaImage) -> Option<ProfileFind> {
        let mut best: Option<ProfileFind> = None;
        for (i, p) in self.profiles.iter().enumerate() {
            let colours: Vec<Rgb> = p.variants.iter().map(|v| v.0).collect();
            let Some(fit) = grid::find_grid(img, &colours, p.board_tolerance(), None) else {
                continue;
            };
            let reading = read_cells(img, fit.rect, p, fit.variant);
            keep_better(&mut best, i, reading, fit.contrast);
        }
        if best.is_some() {
            return best;
        }
        let mut grids = LayeredGrids::new(img);
        for (i, p) in self.profiles.iter().enumerate() {
            for (board_seen, fit) in grids.found(p) {
                if let Some(reading) = read_under_unknown_layer(img, fit.rect, board_seen, p) {
                    keep_better(&mut best, i, reading, fit.contrast);
                }
            }
        }
        best
    }

    /// A read without a profile, taken (and tracked) when it reads more cells than the best
    /// profile's read `best`, whose cells overrule it where they are read.
    fn search_freeform(&mut self, img: &RgbaImage, best: Option<&ProfileFind>) -> Option<Reading> {
        let (grid, board, _) = freeform::find(img)?;
        let mut reading = self.read_freeform(img, grid);
        if let Some(prof) = best {
            overrule(&mut reading, &prof.reading);
        }
        let (readable, _) = reading.quality();
        if best.is_some_and(|b| readable <= b.key.0) {
            return None;
        }
        tracing::debug!(readable, "grid found without a profile");
        self.tracking = Tracking::Freeform {
            grid,
            board,
            size: img.dimensions(),
        };
        Some(reading)
    }

    /// The error when no board is found, naming what was looked for.
    fn no_board(&self) -> ReadError {
        let names: Vec<&str> = self
            .profiles
            .iter()
            .map(|p| p.profile.name.as_str())
            .collect();
        let extra = if self.freeform {
            ", and without a profile"
        } else {
            ""
        };
        ReadError::NoBoard(format!(
            "looked for the board of profile(s) {}{extra}",
            names.join(", ")
        ))
    }

    /// Reads a board drawn without gaps between its cells ([`gapless`]): the first board-like
    /// area whose lattice is found and whose cells read at least [`MIN_GAPLESS_TILES`] tiles,
    /// read with every profile (and without one, for `Auto`, and with the profile learned so far
    /// on a game found without one), the cells that show the empty-cell mark as empty, keeping
    /// the reading with the most readable cells. `None` when nothing looks like such a board; a refusal names the largest
    /// area. The grid is remembered ([`Tracking::Gapless`]): every frame is searched again, and
    /// the grid kept while the same lattice is found.
    fn read_gapless(&mut self, img: &RgbaImage) -> Option<Result<Reading, ReadError>> {
        Some(self.search_gapless(img)?.map(|(reading, grid)| {
            self.tracking = Tracking::Gapless {
                grid,
                size: img.dimensions(),
            };
            reading
        }))
    }

    /// [`Reader::read_gapless`] without remembering the grid: the reading and its grid.
    fn search_gapless(&self, img: &RgbaImage) -> Option<Result<(Reading, GridRect), ReadError>> {
        let areas = gapless::find(img);
        let mut refusal = None;
        for area in areas {
            let (grid, empty) = match area {
                Ok(found) => (found.grid, found.empty),
                Err(e) => {
                    refusal.get_or_insert(e);
                    continue;
                }
            };
            let mut readings: Vec<Reading> = self
                .profiles
                .iter()
                .map(|p| read_cells(img, grid, p, 0))
                .collect();
            if self.freeform {
                readings.push(self.read_freeform(img, grid));
            }
            // a game found without a profile is read with what was learned on it too (a tile
            // known by its colour and faint digits, which a read without a profile cannot see)
            if let Some(l) = self.learning.as_ref().filter(|l| l.from.is_none()) {
                let learned = Prepared::new(l.profile.clone(), &self.all_templates);
                readings.push(read_cells(img, grid, &learned, 0));
            }
            for reading in &mut readings {
                mark_empty(reading, &empty);
            }
            let best = readings
                .into_iter()
                .filter(|r| {
                    r.cells
                        .iter()
                        .filter(|c| c.value.is_some_and(|v| v > 0))
                        .count()
                        >= MIN_GAPLESS_TILES
                })
                .max_by(|a, b| {
                    let (ka, kb) = (a.quality(), b.quality());
                    ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
                });
            match best {
                Some(reading) => return Some(Ok((reading, grid))),
                None => {
                    refusal.get_or_insert(gapless::NoLattice {
                        x: grid.x,
                        y: grid.y,
                        width: grid.width,
                        height: grid.height,
                        reason: gapless::LatticeRefusal::NoTiles {
                            rows: grid.rows,
                            cols: grid.cols,
                        },
                    });
                }
            }
        }
        refusal.map(|e| Err(e.into()))
    }

    /// A profile's reading of a remembered grid, with the cells it could not read read again
    /// without a profile on the same grid (when this reader may read without one: `auto`): a
    /// profile is a help, never a cage. A game in the profile's colours but another font (issue
    /// 24: the web game in DejaVu Sans Bold) reads its 2s, 4s and 8s through the web profile,
    /// which then stays the anchor, and its first 16 only without a profile.
    ///
    /// Only a cell whose background the profile knows as a tile's and whose digits it could not
    /// match ([`CellProblem::DigitsUnreadable`], [`CellProblem::Ambiguous`],
    /// [`CellProblem::ColourDigitsDisagree`]) is taken, and only when the read without a profile
    /// gives one of the values of that background. Cells the profile saw covered (a tile growing
    /// in, a dialog) or in no colour of its own (a tile between two cells) stay unreadable: play
    /// reads a growing new tile itself, with margin ([`Reader::growing_tile`]), and waits out the
    /// rest. The reading's profile name gets [`FILLED_SUFFIX`] when a cell was taken.
    fn fill_without_profile(&self, img: &RgbaImage, mut reading: Reading) -> Reading {
        let fits = |problem: &CellProblem, v: u32| match problem {
            CellProblem::DigitsUnreadable { values, .. } | CellProblem::Ambiguous { values } => {
                values.contains(&v)
            }
            CellProblem::ColourDigitsDisagree { colour, .. } => *colour == v,
            CellProblem::Occluded { .. } | CellProblem::UnknownColour { .. } => false,
        };
        let retry = |is: &CellIssue| {
            !matches!(
                is.problem,
                CellProblem::Occluded { .. } | CellProblem::UnknownColour { .. }
            )
        };
        if !self.freeform || !reading.issues.iter().any(retry) {
            return reading;
        }
        let mut free = self.read_freeform(img, reading.grid);
        overrule(&mut free, &reading);
        let cols = reading.grid.cols;
        let mut filled = 0usize;
        reading.issues.retain(|is| {
            let i = is.row * cols + is.col;
            match free.cells[i] {
                CellRead { value: Some(v), .. } if fits(&is.problem, v) => {
                    reading.cells[i] = free.cells[i];
                    filled += 1;
                    false
                }
                _ => true,
            }
        });
        if filled == 0 {
            return reading;
        }
        tracing::debug!(filled, "cells read without the profile");
        reading.profile.push_str(FILLED_SUFFIX);
        if reading.status == BoardStatus::Unreadable {
            reading.status = status_of_values(&reading);
        }
        reading
    }

    /// Reads a grid found without a profile.
    fn read_freeform(&self, img: &RgbaImage, grid: GridRect) -> Reading {
        let (cells, issues) = freeform::read_cells(img, &grid, &self.all_templates);
        let mut reading = Reading {
            grid,
            cells,
            status: BoardStatus::Ok,
            profile: "none".into(),
            issues,
        };
        reading.status = status_of_values(&reading);
        reading
    }
}

/// The status a reading's values give: unreadable when a cell is, game over when no move is
/// left, else ok.
fn status_of_values(reading: &Reading) -> BoardStatus {
    match reading.values() {
        None => BoardStatus::Unreadable,
        Some(v) if !has_move(&v) => BoardStatus::GameOver,
        Some(_) => BoardStatus::Ok,
    }
}

/// Reads the cells `empty` (row, column) of `reading` as empty: on a board without gaps, the
/// cells whose only shape is the board's empty-cell mark ([`gapless`]); and, when there are
/// such cells, every other cell read as empty as unreadable (a plain tile whose digits do not
/// show, such as a terminal's faint 128, is no empty cell where the empty cells are marked).
/// The status is worked out again from the values.
fn mark_empty(reading: &mut Reading, empty: &[(usize, usize)]) {
    if empty.is_empty() {
        return;
    }
    let cols = reading.grid.cols;
    reading
        .issues
        .retain(|is| !empty.contains(&(is.row, is.col)));
    for (i, cell) in reading.cells.iter_mut().enumerate() {
        let (row, col) = (i / cols, i % cols);
        if empty.contains(&(row, col)) {
            *cell = CellRead {
                value: Some(0),
                confidence: 1.0,
            };
        } else if cell.value == Some(0) {
            *cell = CellRead {
                value: None,
                confidence: 0.0,
            };
            let problem = CellProblem::DigitsUnreadable {
                glyphs: 0,
                values: Vec::new(),
            };
            reading.issues.push(CellIssue { row, col, problem });
        }
    }
    reading.issues.sort_by_key(|is| (is.row, is.col));
    reading.status = status_of_values(reading);
}

/// The empty cell's colour on `grid` in `img`: the median edge-ring colour of the cells `board`
/// (rows of values) says are empty; `None` when it says none is.
fn empty_colour(img: &RgbaImage, grid: &GridRect, board: &[Vec<u32>]) -> Option<Rgb> {
    let mut seen = Vec::new();
    for (row, values) in board.iter().enumerate().take(grid.rows) {
        for (col, _) in values
            .iter()
            .enumerate()
            .take(grid.cols)
            .filter(|(_, v)| **v == 0)
        {
            if let Some((c, _)) = cells::ring_colour(img, &grid.cell(row, col)) {
                seen.push(c);
            }
        }
    }
    colour::median(&seen)
}

/// Makes a reading without a profile agree with a profile's reading of the same board: a cell
/// the profile read must read the same; a cell whose colour the profile did not know, or saw
/// covered, must not become empty (a dialog or a covered area is plain too); a cell of a profile
/// tile colour whose digits did not match can only be one of that colour's values or a larger
/// value (a dialog over the "6" of a 64 leaves a "4"). Cells that clash become unreadable.
fn overrule(free: &mut Reading, prof: &Reading) {
    if (free.grid.rows, free.grid.cols) != (prof.grid.rows, prof.grid.cols) {
        return;
    }
    let cols = free.grid.cols;
    for (i, (f, p)) in free.cells.iter_mut().zip(&prof.cells).enumerate() {
        let (row, col) = (i / cols, i % cols);
        let Some(v) = f.value else { continue };
        let problem = prof
            .issues
            .iter()
            .find(|is| is.row == row && is.col == col)
            .map(|is| &is.problem);
        let clash = match (p.value, problem) {
            (Some(pv), _) => pv != v,
            // a covered cell, or a plain cell of an unknown colour, is no empty cell
            (None, Some(CellProblem::Occluded { .. } | CellProblem::UnknownColour { .. })) => {
                v == 0
            }
            // the background is a tile colour of the profile: only its values are possible, or
            // a larger one sharing the colour of the profile's largest (a dialog over the "6"
            // of a 64 leaves a "4")
            (None, Some(CellProblem::DigitsUnreadable { values, .. })) => values
                .iter()
                .max()
                .is_some_and(|&top| v < top && !values.contains(&v)),
            (None, _) => false,
        };
        if clash {
            let problem = prof
                .issues
                .iter()
                .find(|is| is.row == row && is.col == col)
                .map(|is| is.problem.clone())
                .unwrap_or(CellProblem::ColourDigitsDisagree {
                    colour: p.value.unwrap_or(0),
                    digits: v,
                });
            f.value = None;
            f.confidence = 0.0;
            free.issues.push(CellIssue { row, col, problem });
        }
    }
    free.issues.sort_by_key(|is| (is.row, is.col));
    if !free.issues.is_empty() {
        free.status = BoardStatus::Unreadable;
    }
}

/// Checks a grid found without a profile against a new frame (gap centres in `board`).
fn verify_freeform(img: &RgbaImage, g: &GridRect, board: Rgb) -> bool {
    let mut ok = 0usize;
    let mut total = 0usize;
    for r in 0..g.rows {
        for c in 0..g.cols.saturating_sub(1) {
            let cell = g.cell(r, c);
            let (x, y) = (
                (cell.x1 + g.gap_x() / 2.0) as u32,
                ((cell.y0 + cell.y1) / 2.0) as u32,
            );
            if x < img.width() && y < img.height() {
                total += 1;
                if Rgb::from_rgba(img.get_pixel(x, y).0).dist(board) <= 16 {
                    ok += 1;
                }
            }
        }
    }
    total > 0 && ok as f32 >= MIN_TRACK_SHARE * total as f32
}

/// Checks a remembered grid against a new frame: samples the middle of every gap beside every
/// cell; returns the matching board variant when enough still show a board colour.
fn verify_grid(img: &RgbaImage, g: &GridRect, p: &Prepared) -> Option<usize> {
    if g.gap_x() < 1.0 || g.gap_y() < 1.0 {
        return None;
    }
    let tol = p.board_tolerance();
    let mut votes = vec![0usize; p.variants.len()];
    let mut total = 0usize;
    let mut sample = |x: f32, y: f32| {
        let (x, y) = (x as u32, y as u32);
        if x < img.width() && y < img.height() {
            total += 1;
            let c = Rgb::from_rgba(img.get_pixel(x, y).0);
            if let Some(i) = p.variants.iter().position(|v| v.0.dist(c) <= tol) {
                votes[i] += 1;
            }
        }
    };
    for r in 0..g.rows {
        for c in 0..g.cols {
            let cell = g.cell(r, c);
            let (cx, cy) = ((cell.x0 + cell.x1) / 2.0, (cell.y0 + cell.y1) / 2.0);
            if c + 1 < g.cols {
                sample(cell.x1 + g.gap_x() / 2.0, cy);
            }
            if r + 1 < g.rows {
                sample(cx, cell.y1 + g.gap_y() / 2.0);
            }
        }
    }
    let matched: usize = votes.iter().sum();
    if total == 0 || (matched as f32) < MIN_TRACK_SHARE * total as f32 {
        return None;
    }
    (0..votes.len()).max_by_key(|&i| votes[i])
}

/// Whether any move is possible on a fully read board.
fn has_move(values: &[Vec<u32>]) -> bool {
    let rows = values.len();
    for r in 0..rows {
        let cols = values[r].len();
        for c in 0..cols {
            let v = values[r][c];
            if v == 0
                || (c + 1 < cols && values[r][c + 1] == v)
                || (r + 1 < rows && values[r + 1][c] == v)
            {
                return true;
            }
        }
    }
    false
}

/// Keeps `reading` (of profile `profile`, grid fit `contrast`) in `best` when it reads more
/// cells, or as many with more total confidence (by more than 10^-3), or as much with a better
/// grid fit.
fn keep_better(best: &mut Option<ProfileFind>, profile: usize, reading: Reading, contrast: f32) {
    let (readable, total) = reading.quality();
    let key = (readable, total, contrast);
    let better = match best {
        None => true,
        Some(ProfileFind { key: k, .. }) => {
            key.0 > k.0
                || (key.0 == k.0 && (key.1 > k.1 + 1e-3 || (key.1 >= k.1 - 1e-3 && key.2 > k.2)))
        }
    };
    if better {
        *best = Some(ProfileFind {
            profile,
            key,
            reading,
        });
    }
}

/// Grids drawn in one of a frame's most common colours ([`grid::candidate_colours`]), each
/// colour a board under a layer a profile may never have seen; each searched at most once.
struct LayeredGrids<'a> {
    img: &'a RgbaImage,
    colours: Vec<Rgb>,
    /// (colour, tolerance, the grid found): the searches made.
    searched: Vec<(Rgb, u8, Option<grid::GridFit>)>,
}

impl<'a> LayeredGrids<'a> {
    fn new(img: &'a RgbaImage) -> LayeredGrids<'a> {
        LayeredGrids {
            img,
            colours: grid::candidate_colours(img, LAYERED_BOARD_CANDIDATES),
            searched: Vec::new(),
        }
    }

    /// The grids drawn in a candidate colour within `p`'s board tolerance, with that colour,
    /// for each candidate that can be `p`'s board under a layer ([`overlay::plausible_board`]).
    fn found(&mut self, p: &Prepared) -> Vec<(Rgb, grid::GridFit)> {
        let tol = p.board_tolerance();
        let candidates: Vec<Rgb> = self
            .colours
            .iter()
            .copied()
            .filter(|&c| overlay::plausible_board(&p.profile, c, &self.colours))
            .collect();
        candidates
            .into_iter()
            .filter_map(|c| Some((c, self.search(c, tol)?)))
            .collect()
    }

    fn search(&mut self, c: Rgb, tol: u8) -> Option<grid::GridFit> {
        if let Some(&(_, _, fit)) = self.searched.iter().find(|s| (s.0, s.1) == (c, tol)) {
            return fit;
        }
        let fit = grid::find_grid(self.img, &[c], tol, None);
        self.searched.push((c, tol, fit));
        fit
    }
}

/// Reads `grid` (drawn in the board colour `board_seen`) with profile `p` under the layer
/// [`overlay::infer`] measures; the status is the layer's meaning
/// ([`overlay::status_under_layer`]), or unreadable. `None` when no layer makes the profile's
/// colours the ones seen.
fn read_under_unknown_layer(
    img: &RgbaImage,
    grid: GridRect,
    board_seen: Rgb,
    p: &Prepared,
) -> Option<Reading> {
    let layer = overlay::infer(img, &grid, &p.profile, board_seen)?;
    tracing::debug!(profile = %p.profile.name, ?layer, "read under a layer the profile never saw");
    let mut profile = p.profile.clone();
    profile.overlays = vec![layer];
    let layered = Prepared {
        variants: profile.board_variants(),
        profile,
        templates: p.templates.clone(),
    };
    let mut reading = read_cells(img, grid, &layered, 1);
    reading.status = match reading.values() {
        None => BoardStatus::Unreadable,
        Some(v) => overlay::status_under_layer(has_move(&v)).board_status(),
    };
    Some(reading)
}

/// Reads every cell of a grid with a profile and board variant.
fn read_cells(img: &RgbaImage, grid: GridRect, p: &Prepared, variant: usize) -> Reading {
    let overlay = p.variants.get(variant).and_then(|v| v.1);
    let palette = p.profile.palette(overlay);
    let tol = p.profile.cell_tolerance();
    let mut cells = Vec::with_capacity(grid.rows * grid.cols);
    let mut issues = Vec::new();
    for r in 0..grid.rows {
        for c in 0..grid.cols {
            match read_cell(img, &grid.cell(r, c), &palette, tol, &p.templates) {
                CellOutcome::Read { value, confidence } => {
                    cells.push(CellRead {
                        value: Some(value),
                        confidence,
                    });
                }
                CellOutcome::Unreadable {
                    problem,
                    confidence,
                } => {
                    cells.push(CellRead {
                        value: None,
                        confidence,
                    });
                    issues.push(CellIssue {
                        row: r,
                        col: c,
                        problem,
                    });
                }
            }
        }
    }
    let mut reading = Reading {
        grid,
        cells,
        status: BoardStatus::Ok,
        profile: p.profile.name.clone(),
        issues,
    };
    reading.status = match overlay.and_then(|i| p.profile.overlays.get(i)) {
        Some(o) => o.status.board_status(),
        None => status_of_values(&reading),
    };
    reading
}

/// Frames for tests here and in `play`.
#[cfg(test)]
pub(crate) mod test_frames {
    use image::RgbaImage;

    /// A frame of tests/data/web-moved (the web game whose page moved 121 px down mid-game).
    pub(crate) fn web_moved(name: &str) -> RgbaImage {
        let path = format!("{}/tests/data/web-moved/{name}", env!("CARGO_MANIFEST_DIR"));
        image::open(&path).expect(&path).to_rgba8()
    }

    /// `img` lifted by `px` rows, the rows freed at the bottom filled with the colour of its
    /// pixel (10, 5): the frame before a page moved `px` down, when the page above the board is
    /// one plain colour.
    pub(crate) fn lifted(img: &RgbaImage, px: u32) -> RgbaImage {
        let (w, h) = img.dimensions();
        let page = *img.get_pixel(10, 5);
        RgbaImage::from_fn(w, h, |x, y| {
            if y + px < h {
                *img.get_pixel(x, y + px)
            } else {
                page
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::test_frames::{lifted, web_moved};
    use super::*;

    #[test]
    fn move_check() {
        assert!(has_move(&[vec![2, 4, 2], vec![4, 2, 4], vec![2, 4, 0]]));
        assert!(!has_move(&[vec![2, 4, 2], vec![4, 2, 4], vec![2, 4, 2]]));
        assert!(has_move(&[vec![2, 2, 8], vec![4, 16, 4], vec![2, 4, 2]]));
    }

    /// A frame of tests/data/web-dejavu (the web game in DejaVu Sans Bold, issue 24).
    fn dejavu(i: usize) -> RgbaImage {
        let path = format!(
            "{}/tests/data/web-dejavu/frames/{i:06}.png",
            env!("CARGO_MANIFEST_DIR")
        );
        image::open(&path).expect(&path).to_rgba8()
    }

    /// Issue 24, the page-move drill's failure (`real_games::drill_the_page_moves_down_...`,
    /// once in a full suite): the web profile's grid anchored where the board was; the page
    /// moved 121 px down (one cell pitch); the first frame there, mid-slide, reads only without
    /// a profile, 121 px lower, and is confirmed. The next frame, settled, was read on the old
    /// anchor: its gaps, one whole pitch off, still showed the board colour, so row 0 read the
    /// page above the board and rows 1–3 the board's rows 0–2, and `play` stopped with a desync.
    /// Now the confirmed read carries the anchor to the new place, profile and all.
    /// (The frame before the move is the settled frame lifted by 121 px: the page above the
    /// board is one plain colour.)
    #[test]
    fn a_board_confirmed_lower_without_a_profile_carries_the_anchor_along() {
        let settled = web_moved("moved-settled.png");
        let before = lifted(&settled, 121);
        let mut reader = Reader::new(ProfileChoice::Auto);
        let r = reader.read(&before).unwrap();
        assert_eq!(r.profile, "web-2048");
        assert!(r.grid.y.abs_diff(290) <= 2, "{:?}", r.grid);
        reader.anchor_grid();
        let r = reader.read(&web_moved("moved-mid-slide.png")).unwrap();
        assert_eq!(
            r.profile, "none",
            "mid-slide: only a read without a profile"
        );
        assert!(r.grid.y.abs_diff(411) <= 2, "{:?}", r.grid);
        // labelled by eye: the frame of the move that made it (`up`)
        assert_eq!(
            r.values(),
            Some(vec![
                vec![0, 4, 8, 8],
                vec![0, 2, 4, 4],
                vec![0, 4, 2, 4],
                vec![0, 0, 0, 2]
            ])
        );
        reader.anchor_grid();
        let r = reader.read(&settled).unwrap();
        assert!(r.grid.y.abs_diff(411) <= 2, "{:?}", r.grid);
        assert_eq!(r.profile, "web-2048");
        // labelled by eye: the afterstate of `up` and a new 2 at row 3, column 1
        assert_eq!(
            r.values(),
            Some(vec![
                vec![0, 4, 8, 8],
                vec![0, 2, 4, 8],
                vec![0, 4, 2, 2],
                vec![0, 2, 0, 0]
            ])
        );
    }

    /// The first 16 (frame 20, labelled by eye) after a game the web profile read from its
    /// opening, with a reader that reads as `play` does (auto: every built-in profile, and
    /// without one): the 2s, 4s and 8s fit the web profile, which stays the remembered grid and
    /// the anchor; its templates do not know DejaVu's 16, the read without a profile does. As
    /// in `play`: the read on the remembered grid cannot read the 16 (it disagrees with the
    /// mirror), the grid is forgotten and the frame read again. On main (1a5c063) the read again
    /// kept the cell unreadable and `play` stopped with a desync.
    #[test]
    fn a_cell_the_anchored_profile_cannot_read_is_read_without_one() {
        let sixteen = Some(vec![
            vec![16, 4, 8, 4],
            vec![4, 8, 4, 4],
            vec![0; 4],
            vec![0, 0, 2, 0],
        ]);
        let mut reader = Reader::new(ProfileChoice::Auto);
        let start = reader.read(&dejavu(0)).unwrap();
        assert_eq!(start.profile, "web-2048");
        assert_eq!(
            start.values(),
            Some(vec![
                vec![2, 0, 0, 0],
                vec![0; 4],
                vec![0; 4],
                vec![0, 0, 2, 0]
            ])
        );
        reader.anchor_grid();
        for i in 1..=19 {
            reader.read(&dejavu(i)).unwrap();
            reader.anchor_grid();
        }
        let r = reader.read(&dejavu(20)).unwrap();
        assert_eq!(r.unreadable_cells(), vec![(0, 0)]);
        reader.forget_grid();
        let r = reader.read(&dejavu(20)).unwrap();
        assert_eq!(r.values(), sixteen, "{:?}", r.issues);
        assert_eq!(r.status, BoardStatus::Ok);
        assert_eq!(r.profile, "web-2048+none");
        // the web profile's grid is kept, and with it its animation look
        assert!(matches!(reader.tracking, Tracking::Acquired { .. }));
        assert!(reader.reads_growing());
        // confirmed (it fits the mirror): from now on the reads on the grid take that help
        reader.anchor_grid();
        let r = reader.read(&dejavu(20)).unwrap();
        assert_eq!(r.values(), sixteen, "{:?}", r.issues);
        assert!(reader.reads_growing());
        // with the web profile alone (`--profile web-2048`), never without it
        let mut given = Reader::new(ProfileChoice::Given(Profile::load("web-2048").unwrap()));
        given.read(&dejavu(20)).unwrap();
        given.forget_grid();
        let r = given.read(&dejavu(20)).unwrap();
        assert_eq!(r.unreadable_cells(), vec![(0, 0)]);
    }

    /// A cell the profile saw covered (a new tile growing in: frame 19's 4 at row 3, column 3,
    /// and tests/data/growing's 2 at about 38%) stays unreadable on the profile's grid, also read
    /// again after the grid was forgotten: `play` reads such a tile itself, from half its
    /// opacity on, with margin.
    #[test]
    fn a_covered_cell_is_not_read_again_without_the_profile() {
        let web = || ProfileChoice::Among(vec![Profile::load("web-2048").unwrap()]);
        let mut reader = Reader::new(web());
        reader.read(&dejavu(0)).unwrap();
        reader.anchor_grid();
        reader.forget_grid();
        let r = reader.read(&dejavu(19)).unwrap();
        assert_eq!(r.unreadable_cells(), vec![(3, 3)]);
        assert!(matches!(r.issues[0].problem, CellProblem::Occluded { .. }));
        assert_eq!(r.profile, "web-2048");
        let growing = |name: &str| {
            let path = format!("{}/tests/data/growing/{name}", env!("CARGO_MANIFEST_DIR"));
            image::open(&path).expect(&path).to_rgba8()
        };
        let mut reader = Reader::new(web());
        reader.read(&growing("slide.png")).unwrap();
        reader.anchor_grid();
        reader.forget_grid();
        let r = reader.read(&growing("grow2-alpha38.png")).unwrap();
        assert_eq!(r.unreadable_cells(), vec![(0, 1)]);
    }

    /// The web game's frames after a left move (tests/data/growing). Read from scratch, a frame
    /// with a new tile growing in reads one cell more without a profile (the growing tile as
    /// empty) than with the web profile, so a search that starts there (the remembered grid
    /// failed its check: a merge's pop or a glow over the gaps) takes the grid without a profile.
    /// A fitting read on that grid must not become the anchor, and the next read must come back
    /// to the profile's grid: on the real game, a profile lost this way lost its slide time and
    /// the growing-tile reads until it was found again (18-31 of 300 moves waited a whole quiet
    /// window).
    #[test]
    fn a_grid_found_without_a_profile_does_not_replace_the_profiles_anchor() {
        let frame = |name: &str| {
            let path = format!("{}/tests/data/growing/{name}", env!("CARGO_MANIFEST_DIR"));
            image::open(&path).expect(&path).to_rgba8()
        };
        // the web profile, and reads without one, as `auto` reads (which reads this mid-slide
        // frame with 2048-qt's profile)
        let web = || ProfileChoice::Among(vec![Profile::load("web-2048").unwrap()]);
        let mut reader = Reader::new(web());
        reader.read(&frame("slide.png")).unwrap();
        assert_eq!(reader.slide_ms(), Some(100));
        reader.anchor_grid();
        let mut fresh = Reader::new(web());
        let growing = fresh.read(&frame("grow2-alpha38.png")).unwrap();
        assert!(matches!(fresh.tracking, Tracking::Freeform { .. }));
        assert!(growing.issues.is_empty(), "{:?}", growing.issues);
        // the search after a failed check took the grid without a profile, and its read fitted
        reader.tracking = fresh.tracking;
        reader.anchor_grid();
        let grow = frame("grow2-alpha70.png");
        reader.read(&grow).unwrap();
        assert_eq!(reader.slide_ms(), Some(100));
        assert!(reader.reads_growing());
        assert_eq!(reader.growing_tile(&grow, 0, 1).map(|g| g.value), Some(2));
    }
}
