//! Table files: one file per table in the user's cache folder, a header, the values, a checksum.
//!
//! Layout (all integers little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `B2048TBL` |
//! | 4 | format version, [`FORMAT_VERSION`] |
//! | 4 | the formation's row lengths ([`super::Formation::rows`]) |
//! | 1 | the anchor cell (row-major index) |
//! | 1 | the goal exponent g |
//! | 2 | reserved, 0 |
//! | 8 | entries, (g + 1)^(free cells) |
//! | 8 | build time in milliseconds |
//! | 2 × entries | the values, 65,535ths of a probability, in index order |
//! | 4 | CRC-32 (IEEE) of every byte before it |
//!
//! Saving writes a temporary file beside the target, syncs it and renames it over the target
//! ([`crate::fsio::write_atomic`]), so a
//! crash or Ctrl-C leaves either no table or a whole one. Loading checks the size first (a
//! truncated file is named as such), then the magic, the version, the key and the checksum, and
//! says which failed, in which file, and what to run.
use super::{EndgameTables, Formation, Table, TableKey};
use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The first 8 bytes of every table file.
pub const MAGIC: [u8; 8] = *b"B2048TBL";

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Bytes before the values.
pub const HEADER_LEN: u64 = 36;

/// Values read or written per block.
const BLOCK: usize = 1 << 22;

/// The environment variable that names the tables folder (before the cache folder).
pub const TABLES_ENV: &str = "BOT2048_TABLES";

/// What to run to make tables, for messages.
pub const BUILD_HINT: &str = "run `bot2048 tables build` to build it again";

/// Why a table file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TableFileError {
    /// The file could not be read or written.
    #[error("table file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The file is shorter or longer than its header says.
    #[error("table file {path} is truncated or padded: {found} bytes where its header makes {expected} ({BUILD_HINT})")]
    Size {
        /// The file.
        path: PathBuf,
        /// Bytes expected.
        expected: u64,
        /// Bytes found.
        found: u64,
    },
    /// Not a table file, or of another format version, or of a table this build cannot use.
    #[error("table file {path} {why} ({BUILD_HINT})")]
    Foreign {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The middle-game tables' file ([`super::middle_file`]) cannot be used: foreign, of
    /// another version or another build's tables, truncated, or corrupt.
    #[error("middle-game tables' file {path} {why} (run `bot2048 tables build --set middle --force` to make it again)")]
    Middle {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The checksum does not match: the file was damaged.
    #[error("table file {path} is corrupt: its checksum does not match ({BUILD_HINT})")]
    Corrupt {
        /// The file.
        path: PathBuf,
    },
}

/// A table file's header: what it covers and how long it took to build.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The table's key.
    pub key: TableKey,
    /// Entries (values) in the file.
    pub entries: u64,
    /// Build time, milliseconds.
    pub build_ms: u64,
}

impl Header {
    /// The file's size in bytes: header, values, checksum.
    pub fn file_len(&self) -> u64 {
        HEADER_LEN + 2 * self.entries + 4
    }

    fn to_bytes(&self) -> [u8; HEADER_LEN as usize] {
        let mut b = [0u8; HEADER_LEN as usize];
        b[..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        b[12..16].copy_from_slice(&self.key.formation.rows);
        b[16] = self.key.anchor;
        b[17] = self.key.goal;
        b[20..28].copy_from_slice(&self.entries.to_le_bytes());
        b[28..36].copy_from_slice(&self.build_ms.to_le_bytes());
        b
    }

    fn from_bytes(b: &[u8; HEADER_LEN as usize], path: &Path) -> Result<Header, TableFileError> {
        let foreign = |why: String| TableFileError::Foreign {
            path: path.to_path_buf(),
            why,
        };
        if b[..8] != MAGIC {
            return Err(foreign("is not a bot2048 table file".into()));
        }
        let version = u32::from_le_bytes(b[8..12].try_into().expect("4 bytes"));
        if version != FORMAT_VERSION {
            return Err(foreign(format!(
                "has format version {version}; this build reads version {FORMAT_VERSION}"
            )));
        }
        let rows: [u8; 4] = b[12..16].try_into().expect("4 bytes");
        let formation = Formation::new(rows).map_err(foreign)?;
        let key = TableKey::new(formation, b[16], b[17]).map_err(foreign)?;
        let entries = u64::from_le_bytes(b[20..28].try_into().expect("8 bytes"));
        if entries != key.entries() {
            return Err(foreign(format!(
                "says {entries} entries where its table ({key}) has {}",
                key.entries()
            )));
        }
        let build_ms = u64::from_le_bytes(b[28..36].try_into().expect("8 bytes"));
        Ok(Header {
            key,
            entries,
            build_ms,
        })
    }
}

/// The folder tables live in: `$BOT2048_TABLES` if set, else `$XDG_CACHE_HOME/bot2048/tables`,
/// else `~/.cache/bot2048/tables`; `None` when none of these variables is set.
pub fn tables_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var(TABLES_ENV) {
        return Some(PathBuf::from(dir));
    }
    if let Some(cache) = var("XDG_CACHE_HOME").map(PathBuf::from) {
        if cache.is_absolute() {
            return Some(cache.join("bot2048").join("tables"));
        }
    }
    var("HOME").map(|home| PathBuf::from(home).join(".cache/bot2048/tables"))
}

/// Writes `table` (built in `build_ms` milliseconds) to `dir`/[`TableKey::file_name`],
/// atomically (a temporary file beside it, synced, then renamed). Returns the path.
///
/// # Errors
/// [`TableFileError::Io`] naming the file; no temporary file is left behind.
pub fn save(table: &Table, build_ms: u64, dir: &Path) -> Result<PathBuf, TableFileError> {
    let path = dir.join(table.key().file_name());
    let io = |source| TableFileError::Io {
        path: path.clone(),
        source,
    };
    fs::create_dir_all(dir).map_err(io)?;
    let header = Header {
        key: table.key().clone(),
        entries: table.values().len() as u64,
        build_ms,
    };
    let replace = crate::fsio::Existing::Replace;
    crate::fsio::write_atomic(&path, replace, |out| {
        write_file(out, &header, table.values())
    })
    .map_err(|e| io(e.into_parts().1))?;
    Ok(path)
}

/// Writes a table file (header, values, checksum) into `out`.
fn write_file(out: &mut BufWriter<File>, header: &Header, values: &[u16]) -> io::Result<()> {
    let mut crc = crc32fast::Hasher::new();
    let head = header.to_bytes();
    crc.update(&head);
    out.write_all(&head)?;
    let mut block = Vec::with_capacity(2 * BLOCK);
    for chunk in values.chunks(BLOCK) {
        block.clear();
        block.extend(chunk.iter().flat_map(|v| v.to_le_bytes()));
        crc.update(&block);
        out.write_all(&block)?;
    }
    out.write_all(&crc.finalize().to_le_bytes())
}

/// Reads the header of the table file at `path` and checks the file's size against it (not the
/// checksum: [`load`] does).
///
/// # Errors
/// [`TableFileError`] naming the file: unreadable, foreign, of another version, truncated.
pub fn read_header(path: &Path) -> Result<Header, TableFileError> {
    let io = |source| TableFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::open(path).map_err(io)?;
    let found = file.metadata().map_err(io)?.len();
    let mut head = [0u8; HEADER_LEN as usize];
    if found < HEADER_LEN {
        return Err(TableFileError::Size {
            path: path.to_path_buf(),
            expected: HEADER_LEN,
            found,
        });
    }
    file.read_exact(&mut head).map_err(io)?;
    let header = Header::from_bytes(&head, path)?;
    if found != header.file_len() {
        return Err(TableFileError::Size {
            path: path.to_path_buf(),
            expected: header.file_len(),
            found,
        });
    }
    Ok(header)
}

/// Loads the table file at `path`, reading it in blocks of 8 MiB and checking every byte
/// against the checksum.
///
/// # Errors
/// [`TableFileError`] naming the file: unreadable, foreign, of another version, truncated, or
/// corrupt.
pub fn load(path: &Path) -> Result<(Table, Header), TableFileError> {
    let header = read_header(path)?;
    let io = |source| TableFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::open(path).map_err(io)?;
    let mut crc = crc32fast::Hasher::new();
    let mut head = [0u8; HEADER_LEN as usize];
    file.read_exact(&mut head).map_err(io)?;
    crc.update(&head);
    let mut values = Vec::with_capacity(header.entries as usize);
    let mut block = vec![0u8; 2 * BLOCK];
    let mut left = header.entries as usize;
    while left > 0 {
        let n = left.min(BLOCK);
        file.read_exact(&mut block[..2 * n]).map_err(io)?;
        crc.update(&block[..2 * n]);
        values.extend(
            block[..2 * n]
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]])),
        );
        left -= n;
    }
    let mut stored = [0u8; 4];
    file.read_exact(&mut stored).map_err(io)?;
    if u32::from_le_bytes(stored) != crc.finalize() {
        return Err(TableFileError::Corrupt {
            path: path.to_path_buf(),
        });
    }
    let table = Table::new(header.key.clone(), values).map_err(|why| TableFileError::Foreign {
        path: path.to_path_buf(),
        why,
    })?;
    Ok((table, header))
}

/// The table files (`*.tbl`) in `dir`, sorted by name; none when the folder does not exist.
///
/// # Errors
/// [`TableFileError::Io`] when the folder exists but cannot be read.
pub fn list(dir: &Path) -> Result<Vec<PathBuf>, TableFileError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(TableFileError::Io {
                path: dir.to_path_buf(),
                source,
            })
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tbl"))
        .collect();
    paths.sort();
    Ok(paths)
}

/// Loads every table file of `dir` (see [`list`]).
///
/// # Errors
/// The first file that cannot be loaded, named.
pub fn load_dir(dir: &Path) -> Result<EndgameTables, TableFileError> {
    let mut tables = Vec::new();
    for path in list(dir)? {
        tables.push(load(&path)?.0);
    }
    Ok(EndgameTables::new(tables))
}
