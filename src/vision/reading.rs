//! What a read gives: a [`Reading`] (the grid, each cell's value and confidence, the board's
//! status, the profile used, and a [`CellIssue`] for every cell not read, saying why:
//! [`CellProblem`]), or a [`ReadError`]. How the reading is made is the [`super::Reader`]'s
//! business.
use super::colour::Rgb;
use super::gapless;
use super::grid::GridRect;
use serde::Serialize;
use std::fmt;

/// What the board says beyond its cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardStatus {
    /// Every cell read; moves remain.
    Ok,
    /// A "game over" overlay was seen, or every cell was read and no move is legal.
    GameOver,
    /// A "you win" overlay was seen.
    Won,
    /// At least one cell could not be read (see [`Reading::issues`]).
    Unreadable,
}

impl fmt::Display for BoardStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BoardStatus::Ok => "ok",
            BoardStatus::GameOver => "game_over",
            BoardStatus::Won => "won",
            BoardStatus::Unreadable => "unreadable",
        })
    }
}

/// One cell as read.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CellRead {
    /// Tile value (0 = empty), or `None` when unreadable.
    pub value: Option<u32>,
    /// Confidence 0..=1; below [`super::MIN_CONFIDENCE`] the value is `None`.
    pub confidence: f32,
}

/// Why a cell could not be read.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CellProblem {
    /// The cell's background is no colour of the profile (black = an occluded window area).
    UnknownColour {
        /// Dominant colour seen in the cell's edge ring.
        seen: Rgb,
    },
    /// Something that is neither tile nor digit covers the cell's centre (share 0..=1).
    Occluded {
        /// Share of foreign pixels.
        foreign: f32,
    },
    /// The background is a tile's, but its digits could not be matched.
    DigitsUnreadable {
        /// Glyphs found.
        glyphs: usize,
        /// The values the profile paints on this background (empty when read without a
        /// profile): the cell can only be one of them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        values: Vec<u32>,
    },
    /// Several values fit equally well.
    Ambiguous {
        /// The values.
        values: Vec<u32>,
    },
    /// The colour says one value, the digits clearly another.
    ColourDigitsDisagree {
        /// Value by colour.
        colour: u32,
        /// Value by digits.
        digits: u32,
    },
}

impl fmt::Display for CellProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CellProblem::UnknownColour { seen } => {
                write!(f, "background {seen} is not a colour of the profile")?;
                if seen.dist(Rgb::BLACK) < 8 {
                    write!(f, " (black: covered by another window?)")?;
                }
                Ok(())
            }
            CellProblem::Occluded { foreign } => {
                write!(
                    f,
                    "covered by something else ({:.0}% foreign pixels)",
                    foreign * 100.0
                )
            }
            CellProblem::DigitsUnreadable { glyphs, .. } => {
                write!(f, "tile colour but digits not recognised ({glyphs} glyphs)")
            }
            CellProblem::Ambiguous { values } => write!(f, "ambiguous between {values:?}"),
            CellProblem::ColourDigitsDisagree { colour, digits } => {
                write!(f, "colour says {colour} but digits look like {digits}")
            }
        }
    }
}

/// An unreadable cell: where and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellIssue {
    /// Row, 0 = top.
    pub row: usize,
    /// Column, 0 = left.
    pub col: usize,
    /// Why.
    pub problem: CellProblem,
}

/// The board as read from one image.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reading {
    /// Where the cells are, in image pixels.
    pub grid: GridRect,
    /// Cells, row-major, `rows * cols`.
    pub cells: Vec<CellRead>,
    /// Overlay / end-of-game / readability status.
    pub status: BoardStatus,
    /// Name of the profile used.
    pub profile: String,
    /// The unreadable cells and why (empty when every cell was read).
    pub issues: Vec<CellIssue>,
}

impl Reading {
    /// Values by row (0 = empty), or `None` if any cell is unreadable.
    pub fn values(&self) -> Option<Vec<Vec<u32>>> {
        let cols = self.grid.cols;
        self.cells
            .chunks(cols)
            .map(|row| row.iter().map(|c| c.value).collect::<Option<Vec<u32>>>())
            .collect()
    }

    /// Values by row with `None` for unreadable cells.
    pub fn cells_by_row(&self) -> Vec<Vec<Option<u32>>> {
        self.cells
            .chunks(self.grid.cols)
            .map(|r| r.iter().map(|c| c.value).collect())
            .collect()
    }

    /// How well the board read, for choosing among readings of one image: the cells read
    /// (all cells less the issues) and the sum of the read cells' confidences (0..=1 each).
    pub(super) fn quality(&self) -> (usize, f32) {
        let readable = self.cells.len() - self.issues.len();
        let confidence = self
            .cells
            .iter()
            .filter(|c| c.value.is_some())
            .map(|c| c.confidence)
            .sum();
        (readable, confidence)
    }

    /// (row, col) of every unreadable cell, row-major.
    pub fn unreadable_cells(&self) -> Vec<(usize, usize)> {
        let cols = self.grid.cols;
        (0..self.cells.len())
            .filter(|&i| self.cells[i].value.is_none())
            .map(|i| (i / cols, i % cols))
            .collect()
    }

    /// The values, or [`ReadError::Unreadable`] naming the cells and why.
    ///
    /// # Errors
    /// When any cell is unreadable.
    pub fn into_values(self) -> Result<Vec<Vec<u32>>, ReadError> {
        self.values().ok_or(ReadError::Unreadable {
            issues: self.issues,
        })
    }
}

/// Why an image gave no reading.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReadError {
    /// No grid of the profile's look in the image.
    #[error("no 2048 board found in the image ({0})")]
    NoBoard(String),
    /// A board-like area whose cells touch (no gaps) was found, but not its lattice: refused
    /// rather than guessed.
    #[error("no 2048 board read: {0}")]
    NoLattice(#[from] gapless::NoLattice),
    /// Cells below the confidence threshold.
    #[error("{} unreadable cell(s): {}", issues.len(), describe(issues))]
    Unreadable {
        /// Which and why.
        issues: Vec<CellIssue>,
    },
}

/// "(r,c): why; ..." for messages.
pub fn describe(issues: &[CellIssue]) -> String {
    issues
        .iter()
        .map(|i| format!("row {} col {}: {}", i.row, i.col, i.problem))
        .collect::<Vec<_>>()
        .join("; ")
}
