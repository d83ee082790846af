//! The middle-game tables' file: the values computed so far, kept between runs.
//!
//! The middle-game tables ([`super::middle`]) are computed when play first meets a position;
//! `bot2048 tables build --set middle` plays games to compute them and writes what it computed
//! here, once, and every later run loads it at start. One file, `middle.mtb`, in the tables
//! folder ([`super::file::tables_dir`]). Layout (integers little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `B2048MID` |
//! | 4 | format version, [`MIDDLE_FORMAT_VERSION`] |
//! | 4 | tables T |
//! | 4 | games played to build it |
//! | 4 | reserved, 0 |
//! | 8 | positions computed |
//! | 8 | build time in milliseconds |
//! | 20 × T | each table, in [`MiddleTables::new`]'s order: formation rows (4), anchor cell (1), goal exponent (1), 1 if it covers larger anchors (1), reserved (1), entries (8), chunks stored (4) |
//! | chunks × (4 + 2,048) + 2 × positions | each stored chunk, table by table: its number (4), a bitmap of its 2^14 entries (2,048, bit k of byte k / 8 set when entry k is computed), then each computed entry's word in index order (2 each: 1 + its value in 65,534ths of a probability) |
//! | 4 | CRC-32 (IEEE) of every byte before it |
//!
//! Saving goes through [`crate::fsio::write_atomic`] (a crash leaves the old file or the whole
//! new one). Only computed entries are stored (a quarter of a chunk's entries, in the games
//! measured), so the file is about a third of the memory the values take whole; they are
//! loaded packed, as the file holds them, in about as much memory. Loading checks the
//! size, the magic, the version, that the tables are this build's, and the checksum, and names
//! the file and what to run when one fails.
use super::file::TableFileError;
use super::middle::{MiddleTables, CHUNK_LEN};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The first 8 bytes of the middle-game tables' file.
pub const MIDDLE_MAGIC: [u8; 8] = *b"B2048MID";

/// The format version this build writes and reads: 2 since the block of five's caps changed
/// ([`super::middle::MiddleLayout::new`]; a version 1 file holds values of other tables).
pub const MIDDLE_FORMAT_VERSION: u32 = 2;

/// The file's name in the tables folder.
pub const MIDDLE_FILE: &str = "middle.mtb";

/// Bytes of the fixed header, before the tables.
const HEAD_LEN: u64 = 40;

/// Bytes per table in the header.
const TABLE_LEN: u64 = 20;

/// Bytes per stored chunk before its words: its number and its bitmap.
const CHUNK_HEAD: usize = 4 + CHUNK_LEN / 8;

/// What a middle-game tables' file holds, from its header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MiddleHeader {
    /// Tables described (this build's, [`MiddleTables::new`]).
    pub tables: u32,
    /// Chunks of 2^14 values stored, over all tables.
    pub chunks: u64,
    /// Positions computed (values stored).
    pub positions: u64,
    /// Games played to compute them.
    pub games: u32,
    /// Build time, milliseconds.
    pub build_ms: u64,
}

impl MiddleHeader {
    /// The file's size in bytes: header, tables, chunks, checksum.
    pub fn file_len(&self) -> u64 {
        let chunks = CHUNK_HEAD as u64 * self.chunks + 2 * self.positions;
        HEAD_LEN + TABLE_LEN * u64::from(self.tables) + chunks + 4
    }
}

/// The path of the middle-game tables' file in `dir`.
pub fn middle_path(dir: &Path) -> PathBuf {
    dir.join(MIDDLE_FILE)
}

/// Writes every computed value of `tables` (after `games` games, in `build_ms` milliseconds) to
/// `dir`/[`MIDDLE_FILE`], atomically, replacing the file there. Returns the path and the header
/// written.
///
/// # Errors
/// [`TableFileError::Io`] naming the file; no temporary file is left behind.
pub fn save_middle(
    tables: &MiddleTables,
    games: u32,
    build_ms: u64,
    dir: &Path,
) -> Result<(PathBuf, MiddleHeader), TableFileError> {
    let path = middle_path(dir);
    let io = |source| TableFileError::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let header = MiddleHeader {
        tables: tables.tables().len() as u32,
        chunks: tables.tables().iter().map(|t| t.stored_chunks()).sum(),
        positions: tables.tables().iter().map(|t| t.stored_positions()).sum(),
        games,
        build_ms,
    };
    let replace = crate::fsio::Existing::Replace;
    crate::fsio::write_atomic(&path, replace, |out| write_middle(out, tables, &header))
        .map_err(|e| io(e.into_parts().1))?;
    Ok((path, header))
}

/// Writes `bytes` to `out` and into the checksum.
fn put(out: &mut BufWriter<File>, crc: &mut crc32fast::Hasher, bytes: &[u8]) -> io::Result<()> {
    crc.update(bytes);
    out.write_all(bytes)
}

fn write_middle(
    out: &mut BufWriter<File>,
    tables: &MiddleTables,
    header: &MiddleHeader,
) -> io::Result<()> {
    let mut crc = crc32fast::Hasher::new();
    let mut head = [0u8; HEAD_LEN as usize];
    head[..8].copy_from_slice(&MIDDLE_MAGIC);
    head[8..12].copy_from_slice(&MIDDLE_FORMAT_VERSION.to_le_bytes());
    head[12..16].copy_from_slice(&header.tables.to_le_bytes());
    head[16..20].copy_from_slice(&header.games.to_le_bytes());
    head[24..32].copy_from_slice(&header.positions.to_le_bytes());
    head[32..40].copy_from_slice(&header.build_ms.to_le_bytes());
    put(out, &mut crc, &head)?;
    for t in tables.tables().iter() {
        put(out, &mut crc, &table_bytes(t, t.stored_chunks() as u32))?;
    }
    let mut block = Vec::with_capacity(CHUNK_HEAD + 2 * CHUNK_LEN);
    for t in tables.tables().iter() {
        for (number, words) in t.chunks() {
            block.clear();
            block.extend(number.to_le_bytes());
            block.extend(
                words
                    .chunks(8)
                    .map(|eight| (0..8).fold(0u8, |b, k| b | u8::from(eight[k] != 0) << k)),
            );
            block.extend(
                words
                    .iter()
                    .filter(|&&w| w != 0)
                    .flat_map(|w| w.to_le_bytes()),
            );
            put(out, &mut crc, &block)?;
        }
    }
    out.write_all(&crc.finalize().to_le_bytes())
}

/// A table's 20 header bytes with `chunks` stored chunks.
fn table_bytes(t: &super::middle::MiddleTable, chunks: u32) -> [u8; TABLE_LEN as usize] {
    let l = t.layout();
    let mut b = [0u8; TABLE_LEN as usize];
    b[..4].copy_from_slice(&l.formation().rows);
    b[4] = l.anchor();
    b[5] = l.goal();
    b[6] = u8::from(l.covers_larger_anchors());
    b[8..16].copy_from_slice(&l.entries().to_le_bytes());
    b[16..20].copy_from_slice(&chunks.to_le_bytes());
    b
}

/// Reads the header of the middle-game tables' file at `path` and checks the file's size and
/// its tables against this build's (not the checksum: [`load_middle`] does).
///
/// # Errors
/// [`TableFileError`] naming the file: unreadable, foreign, of another version or another
/// build's tables, truncated.
pub fn read_middle_header(path: &Path) -> Result<MiddleHeader, TableFileError> {
    let mut reader = open(path)?;
    let ours = MiddleTables::new();
    let (header, _) = read_head(&mut reader, path, &ours, &mut crc32fast::Hasher::new())?;
    Ok(header)
}

/// Opens `path` for reading in large blocks.
fn open(path: &Path) -> Result<BufReader<File>, TableFileError> {
    let file = File::open(path).map_err(|source| TableFileError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(BufReader::with_capacity(1 << 22, file))
}

/// Reads and checks the header and the tables' descriptions against `ours` (this build's empty
/// tables, which the caller may then fill); returns the header and each
/// table's stored chunk count.
fn read_head(
    reader: &mut BufReader<File>,
    path: &Path,
    ours: &MiddleTables,
    crc: &mut crc32fast::Hasher,
) -> Result<(MiddleHeader, Vec<u32>), TableFileError> {
    let io = |source| TableFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let foreign = |why: String| TableFileError::Middle {
        path: path.to_path_buf(),
        why,
    };
    let found = reader.get_ref().metadata().map_err(io)?.len();
    let short = |expected| TableFileError::Middle {
        path: path.to_path_buf(),
        why: format!("is truncated or padded: {found} bytes where its header makes {expected}"),
    };
    let mut head = [0u8; HEAD_LEN as usize];
    if found < HEAD_LEN {
        return Err(short(HEAD_LEN));
    }
    reader.read_exact(&mut head).map_err(io)?;
    crc.update(&head);
    let word = |at: usize| u32::from_le_bytes(head[at..at + 4].try_into().expect("4 bytes"));
    let long = |at: usize| u64::from_le_bytes(head[at..at + 8].try_into().expect("8 bytes"));
    if head[..8] != MIDDLE_MAGIC {
        return Err(foreign("is not a bot2048 middle-game tables' file".into()));
    }
    if word(8) != MIDDLE_FORMAT_VERSION {
        return Err(foreign(format!(
            "has format version {}; this build reads version {MIDDLE_FORMAT_VERSION}",
            word(8)
        )));
    }
    if word(12) as usize != ours.tables().len() {
        return Err(foreign(format!(
            "holds {} tables where this build has {}",
            word(12),
            ours.tables().len()
        )));
    }
    let tables_end = HEAD_LEN + TABLE_LEN * u64::from(word(12));
    if found < tables_end {
        return Err(short(tables_end));
    }
    let mut counts = Vec::with_capacity(ours.tables().len());
    for t in ours.tables().iter() {
        let mut b = [0u8; TABLE_LEN as usize];
        reader.read_exact(&mut b).map_err(io)?;
        crc.update(&b);
        let chunks = u32::from_le_bytes(b[16..20].try_into().expect("4 bytes"));
        if b != table_bytes(t, chunks) || u64::from(chunks) > t.chunk_count() {
            return Err(foreign(format!(
                "was made for other middle-game tables (table {} differs from this build's {})",
                counts.len(),
                t.layout().name()
            )));
        }
        counts.push(chunks);
    }
    let header = MiddleHeader {
        tables: word(12),
        chunks: counts.iter().map(|&c| u64::from(c)).sum(),
        positions: long(24),
        games: word(16),
        build_ms: long(32),
    };
    if found != header.file_len() {
        return Err(short(header.file_len()));
    }
    Ok((header, counts))
}

/// Loads the middle-game tables' file at `path`: this build's tables with every value it holds,
/// each byte checked against the checksum.
///
/// # Errors
/// [`TableFileError`] naming the file: unreadable, foreign, of another version or another
/// build's tables, truncated, or corrupt (a chunk out of its table's range counts as corrupt).
pub fn load_middle(path: &Path) -> Result<(MiddleTables, MiddleHeader), TableFileError> {
    let mut reader = open(path)?;
    let mut crc = crc32fast::Hasher::new();
    let mut tables = MiddleTables::new();
    let (header, counts) = read_head(&mut reader, path, &tables, &mut crc)?;
    let io = |source| TableFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let corrupt = || TableFileError::Middle {
        path: path.to_path_buf(),
        why: "is corrupt: its checksum does not match".to_string(),
    };
    let mut head = [0u8; CHUNK_HEAD];
    let mut bytes = vec![0u8; 2 * CHUNK_LEN];
    let mut positions = 0u64;
    for (t, &count) in tables.tables_mut().iter_mut().zip(&counts) {
        for _ in 0..count {
            reader.read_exact(&mut head).map_err(io)?;
            crc.update(&head);
            let number = u32::from_le_bytes(head[..4].try_into().expect("4 bytes"));
            let bitmap = &head[4..];
            let stored: usize = bitmap.iter().map(|b| b.count_ones() as usize).sum();
            positions += stored as u64;
            if positions > header.positions {
                return Err(corrupt());
            }
            let bytes = &mut bytes[..2 * stored];
            reader.read_exact(bytes).map_err(io)?;
            crc.update(bytes);
            let words = bytes
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .collect();
            // a stored word of 0 would read as "not computed": a damaged file
            if t.put_chunk(number, bitmap, words).is_none() {
                return Err(corrupt());
            }
        }
    }
    if positions != header.positions {
        return Err(corrupt());
    }
    let mut stored = [0u8; 4];
    reader.read_exact(&mut stored).map_err(io)?;
    if u32::from_le_bytes(stored) != crc.finalize() {
        return Err(corrupt());
    }
    tables.count_loaded();
    Ok((tables, header))
}

/// Loads the middle-game tables' file of `dir` when there is one: `Ok(None)` when there is none.
///
/// # Errors
/// As [`load_middle`], for a file that is there but cannot be used.
pub fn load_middle_if_saved(
    dir: &Path,
) -> Result<Option<(MiddleTables, MiddleHeader)>, TableFileError> {
    let path = middle_path(dir);
    if !path.exists() {
        return Ok(None);
    }
    load_middle(&path).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Board, Move};

    /// A board a middle-game table covers, with values to compute: anchor 64 at (1,2) of the
    /// 3-3 block, a 4 and a 2 in row 2.
    fn covered() -> Board {
        let rows = [[12u8, 11, 10, 1], [7, 8, 6, 3], [0, 0, 2, 1], [0, 0, 0, 0]];
        Board::from_raw((0..16).fold(0, |r, i| r | u64::from(rows[i / 4][i % 4]) << (4 * i)))
    }

    /// Tables with some values computed, saved into a fresh folder.
    fn saved() -> (MiddleTables, tempfile::TempDir, PathBuf, MiddleHeader) {
        let tables = MiddleTables::new();
        assert!(tables.move_values(covered()).is_some());
        let dir = tempfile::tempdir().unwrap();
        let (path, header) = save_middle(&tables, 3, 1234, dir.path()).unwrap();
        (tables, dir, path, header)
    }

    #[test]
    fn save_then_load_gives_the_same_values() {
        let (tables, _dir, path, header) = saved();
        assert_eq!(path.file_name().unwrap(), MIDDLE_FILE);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), header.file_len());
        assert_eq!((header.games, header.build_ms), (3, 1234));
        let chunks: u64 = tables.tables().iter().map(|t| t.stored_chunks()).sum();
        assert!(chunks > 0);
        assert_eq!(header.chunks, chunks);
        let (loaded, read) = load_middle(&path).unwrap();
        assert_eq!(read, header);
        assert_eq!(read_middle_header(&path).unwrap(), header);
        for (a, b) in tables.tables().iter().zip(loaded.tables().iter()) {
            assert!(a.chunks().eq(b.chunks()), "{}", a.layout().name());
        }
        // loaded packed: per chunk a 2,048-byte bitmap and 512 bytes of ranks, 2 bytes a value
        let packed = header.chunks * (2048 + 512) + 2 * header.positions;
        assert_eq!(loaded.memory(), packed);
        assert!(packed * 2 < tables.memory(), "{packed} {}", tables.memory());
        let computed = |t: &MiddleTables| {
            t.stats()
                .computed
                .load(std::sync::atomic::Ordering::Relaxed)
        };
        assert_eq!(computed(&loaded), computed(&tables));
        // the loaded values decide the board without computing anything more
        let loaded = loaded.with_memory_limit(0);
        let v = loaded.move_values(covered()).expect("known values decide");
        assert_eq!(Some(v), tables.move_values(covered()));
        assert!(v[Move::Left.index()].is_some_and(|p| p > 0.0));
    }

    /// The error's text, which must name the file.
    fn refused(path: &Path) -> String {
        let e = load_middle(path).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains(&path.display().to_string()), "{e}");
        assert!(e.contains("tables build --set middle"), "{e}");
        e
    }

    #[test]
    fn a_truncated_corrupt_or_foreign_file_is_refused_with_its_name() {
        let (_tables, _dir, path, header) = saved();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
        assert!(refused(&path).contains("truncated"));
        assert!(read_middle_header(&path).is_err());
        let mut flipped = bytes.clone();
        let last_chunk = header.file_len() as usize - 4 - 100;
        flipped[last_chunk] ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        assert!(refused(&path).contains("corrupt"));
        let mut version = bytes.clone();
        version[8] = 9;
        std::fs::write(&path, &version).unwrap();
        assert!(refused(&path).contains("format version 9"));
        let mut other = bytes.clone();
        other[HEAD_LEN as usize + 5] += 1; // the first table's goal
        std::fs::write(&path, &other).unwrap();
        assert!(refused(&path).contains("other middle-game tables"));
        std::fs::write(&path, b"B2048TBL and more bytes than a header has, surely").unwrap();
        assert!(refused(&path).contains("not a bot2048 middle-game"));
        std::fs::write(&path, &bytes).unwrap();
        assert!(load_middle(&path).is_ok());
    }

    #[test]
    fn no_file_is_no_tables_and_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load_middle_if_saved(dir.path()).unwrap().is_none());
    }
}
