//! Board labels: the text format of the corpus labels (`tests/data/corpus/**/*.txt`,
//! `../shared/corpus/**/*.txt`) and of `bot2048 read`'s output.
//!
//! One line per board row, cells separated by spaces: a tile value, `0` for an empty cell, `?`
//! for a cell that cannot be seen. Lines starting with `#` are notes; blank lines are skipped.
use std::path::{Path, PathBuf};

/// A labelled board: `cells[row][col]`, `None` = `?` (unseen).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Rows of cells; every row has the same length.
    pub cells: Vec<Vec<Option<u32>>>,
}

/// Errors of [`Label::parse`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LabelError {
    /// A token is neither `?` nor 0 nor a power of two up to 131072.
    #[error("line {line}: {token:?} is not 0, ? or a power of two up to 131072")]
    BadCell {
        /// 1-based line.
        line: usize,
        /// The token.
        token: String,
    },
    /// Rows of different lengths, or a size outside 3..=9.
    #[error("rows must all have the same 3 to 9 cells, and there must be 3 to 9 rows")]
    BadShape,
}

impl Label {
    /// Parses label text.
    ///
    /// # Errors
    /// [`LabelError`] naming the line.
    pub fn parse(text: &str) -> Result<Label, LabelError> {
        let mut cells = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let row = line
                .split_whitespace()
                .map(|t| match t {
                    "?" => Ok(None),
                    _ => match t.parse::<u32>() {
                        Ok(v) if v == 0 || (v.is_power_of_two() && (2..=131_072).contains(&v)) => {
                            Ok(Some(v))
                        }
                        _ => Err(LabelError::BadCell {
                            line: i + 1,
                            token: t.to_string(),
                        }),
                    },
                })
                .collect::<Result<Vec<_>, _>>()?;
            cells.push(row);
        }
        let cols = cells.first().map_or(0, Vec::len);
        if !(3..=9).contains(&cells.len())
            || !(3..=9).contains(&cols)
            || cells.iter().any(|r| r.len() != cols)
        {
            return Err(LabelError::BadShape);
        }
        Ok(Label { cells })
    }

    /// (rows, cols).
    pub fn shape(&self) -> (usize, usize) {
        (self.cells.len(), self.cells[0].len())
    }
}

/// Image files (`.png`, `.jpg`, `.jpeg`) in `dir` that have a `.txt` label beside them,
/// sorted by name.
///
/// # Errors
/// The directory cannot be listed.
pub fn labelled_images(dir: &Path) -> std::io::Result<Vec<(PathBuf, PathBuf)>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        let ext = p
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if matches!(ext.as_deref(), Some("png" | "jpg" | "jpeg")) {
            let txt = p.with_extension("txt");
            if txt.is_file() {
                out.push((p, txt));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Formats a board in label format (`?` for `None`), one line per row, trailing newline.
pub fn format_board(rows: &[Vec<Option<u32>>]) -> String {
    let mut s = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .map(|c| c.map_or_else(|| "?".to_string(), |v| v.to_string()))
            .collect();
        s.push_str(&cells.join(" "));
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_labels() {
        let l = Label::parse("2 0 0 4\n? 8 0 0\n# note\n0 0 0 0\n0 0 0 131072\n").unwrap();
        assert_eq!(l.shape(), (4, 4));
        assert_eq!(l.cells[1][0], None);
        assert_eq!(l.cells[3][3], Some(131_072));
        assert!(Label::parse("2 3 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0").is_err());
        assert!(Label::parse("2 0 0\n0 0 0 0\n0 0 0 0\n").is_err());
        assert_eq!(format_board(&l.cells[..2]), "2 0 0 4\n? 8 0 0\n");
    }
}
