//! The weights file of a [`Network`]: a header naming the network, the weights, a checksum.
//!
//! Layout (all integers little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `BOT2048N` |
//! | 4 | format version, [`FORMAT_VERSION`] |
//! | 4 + n | spec length, then the spec's canonical text ([`Spec`]'s `Display`), UTF-8 |
//! | 1 | encoding: 0 = `f32`, 1 = `i16` with a per-table `f32` scale ([`Encoding`]) |
//! | 1 | compression: 0 = none, 1 = deflate (RFC 1951) |
//! | 1 | extra tables after the weights: 0, or 2 in a TC training checkpoint (its `E` and `A`) |
//! | 1 | reserved, 0 |
//! | 8 | training games the weights have learnt from ([`Network::games`]) |
//! | 4 + n | note length, then the note, UTF-8 (free text: how the network was trained) |
//! | 8 + n | payload length in bytes as stored, then the payload |
//! | 4 | CRC-32 (IEEE) of every byte before it |
//!
//! The payload, once decompressed, is for `f32`: every weight in [`Network::weight`] order; for
//! `i16`: first one `f32` scale per table (a table per tuple and stage, in
//! [`Spec::table_lens`] order), then every weight `w` as `round(w / scale)`, where
//! `scale = max |w| / 32767` over its table (so the error is at most `scale / 2`). A staged
//! spec (`4x6@16384`) is written in the spec field as such; a one-stage spec's text and payload
//! are what they were before stages existed, so older files load unchanged.
//! Extra tables (only with `f32`) follow the weights, each as long, in the same order.
//! [`Network::load`] reads past them; the trainer loads them to resume temporal coherence.
//!
//! Saving writes a temporary file beside the target, syncs it and renames it over the target, so
//! a crash leaves either the old file or the new one. Loading checks the magic, the version, the
//! spec, the size, the payload and the checksum, and says which failed and in which file.
use super::{Network, Spec, SpecError};
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU32;

/// The first 8 bytes of every weights file.
pub const MAGIC: [u8; 8] = *b"BOT2048N";

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// The longest spec text a file may hold, in bytes (16 tuples of 7 cells need 127).
const MAX_SPEC_LEN: u32 = 1024;

/// The longest note a file may hold, in bytes.
const MAX_NOTE_LEN: u32 = 1 << 20;

/// Weights converted per chunk while reading or writing.
const CHUNK: usize = 1 << 16;

/// How the weights are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// 4 bytes a weight, exact (training checkpoints).
    F32,
    /// 2 bytes a weight with one scale per tuple (shipped networks; error ≤ scale / 2).
    I16,
}

/// How a network is written: encoding and compression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeightsFormat {
    /// The encoding of each weight.
    pub encoding: Encoding,
    /// Deflate the payload (slower to write; unvisited weights, all equal, shrink to nothing).
    pub compressed: bool,
}

impl WeightsFormat {
    /// Exact and fast to write: `f32`, uncompressed (256 MiB for 4 × 6 tuples).
    pub const CHECKPOINT: WeightsFormat = WeightsFormat {
        encoding: Encoding::F32,
        compressed: false,
    };
    /// Small: `i16`, deflated. Measured on a 4 × 6 network after 42,243 TC games: 16.3 MiB
    /// (the exact checkpoint: 256 MiB), and no loss of strength in 1,000 greedy games on the same
    /// seeds (average 96,380 and 2048 in 97.0 %, against 95,417 and 96.1 % from the f32 weights).
    pub const SHIP: WeightsFormat = WeightsFormat {
        encoding: Encoding::I16,
        compressed: true,
    };
}

/// Why a weights file could not be loaded. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be opened or read.
    #[error("cannot read network file {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The file does not start with [`MAGIC`].
    #[error("{} is not a bot2048 network file (it does not start with BOT2048N)", path.display())]
    NotANetwork {
        /// The file.
        path: PathBuf,
    },
    /// The file has another format version.
    #[error("network file {} has format version {found}; this build reads version {FORMAT_VERSION}", path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
    },
    /// The file holds a network of another shape than the one asked for.
    #[error("network file {} holds network {found}, not the {expected} asked for", path.display())]
    SpecMismatch {
        /// The file.
        path: PathBuf,
        /// The spec in the file.
        found: String,
        /// The spec asked for.
        expected: String,
    },
    /// The file ends before its header does, or before the size its header gives.
    #[error("network file {} is truncated: it has {found} bytes{}", path.display(),
        expected.map(|n| format!(", its header gives {n}")).unwrap_or_else(|| ", not all of its header".into()))]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Bytes in the file.
        found: u64,
        /// Bytes the header says the file has (`None`: the header itself is cut).
        expected: Option<u64>,
    },
    /// The file is damaged: a bad header field, payload or checksum.
    #[error("network file {} is corrupt: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// Why a network could not be saved.
#[derive(Debug, thiserror::Error)]
#[error("cannot write network file {}: {source}", path.display())]
pub struct SaveError {
    /// The file being written.
    pub path: PathBuf,
    /// The underlying error.
    pub source: io::Error,
}

/// A reader that keeps the CRC-32 of everything read through it.
struct CrcReader<R> {
    inner: R,
    crc: crc32fast::Hasher,
}

impl<R: Read> Read for CrcReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
}

/// A writer that keeps the CRC-32 of everything written through it.
struct CrcWriter<W> {
    inner: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Write for CrcWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn read_array<const N: usize>(r: &mut impl Read) -> io::Result<[u8; N]> {
    let mut b = [0u8; N];
    r.read_exact(&mut b)?;
    Ok(b)
}

/// The fixed fields of a file, as read.
struct Header {
    spec: Spec,
    encoding: Encoding,
    compressed: bool,
    /// Extra f32 tables after the weights (TC's accumulators).
    extra: usize,
    games: u64,
    note: String,
    payload_len: u64,
    /// Bytes from the start of the file to the payload.
    header_len: u64,
}

impl Network {
    /// Loads a network from `path`, whatever its spec.
    ///
    /// # Errors
    /// [`LoadError`]: the file cannot be read, is not a network file, has another version, is
    /// truncated or corrupt (bad field, payload or checksum).
    pub fn load(path: impl AsRef<Path>) -> Result<Network, LoadError> {
        load(path.as_ref(), None, false).map(|(net, _)| net)
    }

    /// Loads a network from `path` and refuses one of another spec than `expected` (before
    /// reading its weights).
    ///
    /// # Errors
    /// [`LoadError::SpecMismatch`], or any error of [`Network::load`].
    pub fn load_spec(path: impl AsRef<Path>, expected: &Spec) -> Result<Network, LoadError> {
        load(path.as_ref(), Some(expected), false).map(|(net, _)| net)
    }

    /// Saves the network to `path` exactly ([`WeightsFormat::CHECKPOINT`]) with its own
    /// [`Network::note`], atomically; see [`Network::save_as`].
    ///
    /// # Errors
    /// [`SaveError`] naming the file.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), SaveError> {
        self.save_as(path, WeightsFormat::CHECKPOINT, &self.note)
    }

    /// Saves the network to `path` in `format`, atomically (temporary file, sync, rename).
    /// `note` is kept in the file as free text (e.g. how the network was trained).
    ///
    /// While the network is being trained by other threads the weights saved are a blend of
    /// moments; the trainer pauses its threads for a checkpoint.
    ///
    /// # Errors
    /// [`SaveError`] naming the file when writing or renaming fails (the temporary file is
    /// removed).
    pub fn save_as(
        &self,
        path: impl AsRef<Path>,
        format: WeightsFormat,
        note: &str,
    ) -> Result<(), SaveError> {
        self.save_with(path.as_ref(), format, note, &[])
    }

    /// As [`Network::save_as`], with `extra` tables (each as long as the weights; `f32` only)
    /// after the weights: a TC checkpoint's accumulators.
    pub(crate) fn save_with(
        &self,
        path: &Path,
        format: WeightsFormat,
        note: &str,
        extra: &[&[AtomicU32]],
    ) -> Result<(), SaveError> {
        debug_assert!(extra.is_empty() || format.encoding == Encoding::F32);
        debug_assert!(extra.iter().all(|t| t.len() == self.weights.len()));
        crate::fsio::write_atomic(path, crate::fsio::Existing::Replace, |w| {
            self.write_into(w, format, note, extra)
        })
        .map_err(|e| {
            let (path, source) = e.into_parts();
            SaveError { path, source }
        })
    }

    /// Writes the whole file (header, payload, checksum) into `out`.
    fn write_into(
        &self,
        out: &mut BufWriter<File>,
        format: WeightsFormat,
        note: &str,
        extra: &[&[AtomicU32]],
    ) -> io::Result<()> {
        let payload = match format.compressed {
            true => {
                let mut enc = DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
                self.write_payload(&mut enc, format.encoding, extra)?;
                Some(enc.finish()?)
            }
            false => None,
        };
        let payload_len = match &payload {
            Some(p) => p.len() as u64,
            None => self.raw_payload_len(format.encoding) * (1 + extra.len() as u64),
        };
        let mut w = CrcWriter {
            inner: out,
            crc: crc32fast::Hasher::new(),
        };
        let spec = self.spec.to_string();
        w.write_all(&MAGIC)?;
        w.write_all(&FORMAT_VERSION.to_le_bytes())?;
        w.write_all(&(spec.len() as u32).to_le_bytes())?;
        w.write_all(spec.as_bytes())?;
        w.write_all(&[
            match format.encoding {
                Encoding::F32 => 0,
                Encoding::I16 => 1,
            },
            format.compressed as u8,
            extra.len() as u8,
            0,
        ])?;
        w.write_all(&self.games().to_le_bytes())?;
        let note = &note.as_bytes()[..note.len().min(MAX_NOTE_LEN as usize)];
        w.write_all(&(note.len() as u32).to_le_bytes())?;
        w.write_all(note)?;
        w.write_all(&payload_len.to_le_bytes())?;
        match &payload {
            Some(p) => w.write_all(p)?,
            None => self.write_payload(&mut w, format.encoding, extra)?,
        }
        let crc = w.crc.clone().finalize();
        w.inner.write_all(&crc.to_le_bytes())?;
        Ok(())
    }

    /// The payload's length before compression, in bytes.
    fn raw_payload_len(&self, encoding: Encoding) -> u64 {
        let n = self.weights.len() as u64;
        match encoding {
            Encoding::F32 => 4 * n,
            Encoding::I16 => 4 * self.spec.table_count() as u64 + 2 * n,
        }
    }

    /// The weights of table `t` (stage by stage, tuple by tuple: [`Spec::table_lens`]), in
    /// index order, as a range of the flat array.
    fn table_range(&self, t: usize) -> std::ops::Range<usize> {
        let start: usize = self.spec.table_lens().take(t).sum();
        let len = self.spec.table_lens().nth(t).unwrap_or(0);
        start..start + len
    }

    fn write_payload(
        &self,
        w: &mut impl Write,
        encoding: Encoding,
        extra: &[&[AtomicU32]],
    ) -> io::Result<()> {
        let mut buf = Vec::with_capacity(4 * CHUNK);
        match encoding {
            Encoding::F32 => {
                let tables = std::iter::once(&self.weights[..]).chain(extra.iter().copied());
                for chunk in tables.flat_map(|t| t.chunks(CHUNK)) {
                    buf.clear();
                    for x in chunk {
                        buf.extend_from_slice(
                            &x.load(std::sync::atomic::Ordering::Relaxed).to_le_bytes(),
                        );
                    }
                    w.write_all(&buf)?;
                }
            }
            Encoding::I16 => {
                let scales: Vec<f32> = (0..self.spec.table_count())
                    .map(|t| self.i16_scale(t))
                    .collect();
                for s in &scales {
                    w.write_all(&s.to_le_bytes())?;
                }
                for (t, &scale) in scales.iter().enumerate() {
                    for chunk in self.weights[self.table_range(t)].chunks(CHUNK) {
                        buf.clear();
                        for x in chunk {
                            let v = f32::from_bits(x.load(std::sync::atomic::Ordering::Relaxed));
                            let q = (v / scale).round().clamp(-32767.0, 32767.0) as i16;
                            buf.extend_from_slice(&q.to_le_bytes());
                        }
                        w.write_all(&buf)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The `i16` scale of table `t`: its largest |weight| / 32767 (1 for an all-zero table).
    fn i16_scale(&self, t: usize) -> f32 {
        let max = self.weights[self.table_range(t)]
            .iter()
            .map(|x| f32::from_bits(x.load(std::sync::atomic::Ordering::Relaxed)).abs())
            .filter(|v| v.is_finite())
            .fold(0.0f32, f32::max);
        if max > 0.0 {
            max / 32767.0
        } else {
            1.0
        }
    }
}

/// A network and the extra tables of its file (empty unless `want_extra` and the file has them).
pub(crate) type Loaded = (Network, Vec<Vec<AtomicU32>>);

/// Loads the file at `path`; see [`Network::load`]. With `want_extra`, the extra tables of a
/// checkpoint are returned too; otherwise they are read past.
pub(crate) fn load(
    path: &Path,
    expected: Option<&Spec>,
    want_extra: bool,
) -> Result<Loaded, LoadError> {
    let io_err = |source: io::Error| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io_err)?;
    let file_len = file.metadata().map_err(io_err)?.len();
    let mut r = CrcReader {
        inner: BufReader::with_capacity(1 << 20, file),
        crc: crc32fast::Hasher::new(),
    };
    read_magic(&mut r, path)?;
    let header = read_header(&mut r, path, file_len)?;
    check_header(&header, expected, path, file_len)?;
    let (weights, extras) = read_payload(&mut r, &header, want_extra, path)?;
    check_crc(&mut r, path)?;
    let mut net = Network::from_parts(header.spec, weights, header.games);
    net.note = header.note;
    Ok((net, extras))
}

/// Reads the magic number.
///
/// # Errors
/// [`LoadError::NotANetwork`] for a short file or another magic; [`LoadError::Io`].
fn read_magic(r: &mut CrcReader<BufReader<File>>, path: &Path) -> Result<(), LoadError> {
    let magic: [u8; 8] = read_array(r).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => LoadError::NotANetwork {
            path: path.to_path_buf(),
        },
        _ => LoadError::Io {
            path: path.to_path_buf(),
            source: e,
        },
    })?;
    if magic != MAGIC {
        return Err(LoadError::NotANetwork {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

/// Checks the header against the spec `expected` and the file's length in bytes.
///
/// # Errors
/// [`LoadError::SpecMismatch`], [`LoadError::Truncated`], or [`LoadError::Corrupt`] for bytes
/// after the checksum.
fn check_header(
    header: &Header,
    expected: Option<&Spec>,
    path: &Path,
    file_len: u64,
) -> Result<(), LoadError> {
    if let Some(want) = expected {
        if *want != header.spec {
            return Err(LoadError::SpecMismatch {
                path: path.to_path_buf(),
                found: header.spec.to_string(),
                expected: want.to_string(),
            });
        }
    }
    let total = header.header_len + header.payload_len + 4;
    if file_len < total {
        return Err(LoadError::Truncated {
            path: path.to_path_buf(),
            found: file_len,
            expected: Some(total),
        });
    }
    if file_len > total {
        return Err(LoadError::Corrupt {
            path: path.to_path_buf(),
            reason: format!(
                "{} bytes after the checksum (the header gives {total} bytes in all)",
                file_len - total
            ),
        });
    }
    Ok(())
}

/// Reads the payload: the weights, then the extra tables (kept with `want_extra`, else read
/// past); the whole payload is hashed.
///
/// # Errors
/// [`LoadError::Corrupt`] for a payload that does not decode to the spec's weights;
/// [`LoadError::Io`].
fn read_payload(
    r: &mut CrcReader<BufReader<File>>,
    header: &Header,
    want_extra: bool,
    path: &Path,
) -> Result<(Vec<AtomicU32>, Vec<Vec<AtomicU32>>), LoadError> {
    let corrupt = |reason: String| LoadError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let mut payload = r.take(header.payload_len);
    let (weights, extras) = decode_payload(&mut payload, header, want_extra)
        .map_err(|e| corrupt(format!("bad payload: {e}")))?;
    // Anything left of the payload (after a complete deflate stream) must still be hashed.
    let left = io::copy(&mut payload, &mut io::sink()).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if left > 0 && !header.compressed {
        return Err(corrupt(
            "the payload holds more than the spec's weights".into(),
        ));
    }
    debug_assert_eq!(weights.len(), header.spec.weight_count());
    Ok((weights, extras))
}

/// Decodes the weights and extra tables from `payload` (inflating it if compressed).
fn decode_payload(
    payload: &mut impl Read,
    header: &Header,
    want_extra: bool,
) -> io::Result<(Vec<AtomicU32>, Vec<Vec<AtomicU32>>)> {
    let count = header.spec.weight_count();
    let mut src: Box<dyn Read + '_> = match header.compressed {
        true => Box::new(DeflateDecoder::new(payload)),
        false => Box::new(payload),
    };
    let weights = read_weights(&mut src, &header.spec, header.encoding)?;
    let mut extras = Vec::new();
    for _ in 0..header.extra {
        if want_extra {
            extras.push(read_weights(&mut src, &header.spec, Encoding::F32)?);
        } else {
            let n = 4 * count as u64;
            if io::copy(&mut (&mut src).take(n), &mut io::sink())? < n {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
        }
    }
    if header.compressed && src.read(&mut [0u8; 1])? != 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the payload holds more than the spec's weights",
        ));
    }
    Ok((weights, extras))
}

/// Compares the checksum stored after the payload with the one computed while reading.
///
/// # Errors
/// [`LoadError::Corrupt`] on a mismatch; [`LoadError::Io`].
fn check_crc(r: &mut CrcReader<BufReader<File>>, path: &Path) -> Result<(), LoadError> {
    let computed = r.crc.clone().finalize();
    let stored = read_array(&mut r.inner).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let stored = u32::from_le_bytes(stored);
    if computed != stored {
        return Err(LoadError::Corrupt {
            path: path.to_path_buf(),
            reason: format!("checksum mismatch (stored {stored:08x}, computed {computed:08x})"),
        });
    }
    Ok(())
}

/// Reads the header after the magic number, field by field, checking each.
///
/// # Errors
/// [`LoadError::Truncated`] for a file that ends inside it, [`LoadError::Version`],
/// [`LoadError::Corrupt`] naming the bad field, [`LoadError::Io`].
fn read_header(
    r: &mut CrcReader<BufReader<File>>,
    path: &Path,
    file_len: u64,
) -> Result<Header, LoadError> {
    let h = HeaderReader { path, file_len };
    let version = u32::from_le_bytes(read_array(r).map_err(|e| h.short(e))?);
    if version != FORMAT_VERSION {
        return Err(LoadError::Version {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let (spec, spec_len) = h.spec(r)?;
    let (encoding, compressed, extra) = h.layout(r)?;
    let games = u64::from_le_bytes(read_array(r).map_err(|e| h.short(e))?);
    let (note, note_len) = h.note(r)?;
    let payload_len = u64::from_le_bytes(read_array(r).map_err(|e| h.short(e))?);
    h.check_payload_len(&spec, encoding, compressed, extra, payload_len)?;
    let header_len = 8 + 4 + 4 + spec_len as u64 + 4 + 8 + 4 + note_len as u64 + 8;
    Ok(Header {
        spec,
        encoding,
        compressed,
        extra,
        games,
        note,
        payload_len,
        header_len,
    })
}

/// The file whose header is read, for the errors of its fields.
struct HeaderReader<'a> {
    path: &'a Path,
    file_len: u64,
}

impl HeaderReader<'_> {
    /// A read that failed: the file ends inside the header, or an I/O error.
    fn short(&self, e: io::Error) -> LoadError {
        match e.kind() {
            io::ErrorKind::UnexpectedEof => LoadError::Truncated {
                path: self.path.to_path_buf(),
                found: self.file_len,
                expected: None,
            },
            _ => LoadError::Io {
                path: self.path.to_path_buf(),
                source: e,
            },
        }
    }

    /// A field that is not what the format allows.
    fn corrupt(&self, reason: String) -> LoadError {
        LoadError::Corrupt {
            path: self.path.to_path_buf(),
            reason,
        }
    }

    /// The spec and its length in bytes.
    fn spec(&self, r: &mut impl Read) -> Result<(Spec, u32), LoadError> {
        let spec_len = u32::from_le_bytes(read_array(r).map_err(|e| self.short(e))?);
        if spec_len > MAX_SPEC_LEN {
            return Err(self.corrupt(format!("spec length {spec_len} (at most {MAX_SPEC_LEN})")));
        }
        let mut spec = vec![0u8; spec_len as usize];
        r.read_exact(&mut spec).map_err(|e| self.short(e))?;
        let spec =
            String::from_utf8(spec).map_err(|_| self.corrupt("the spec is not UTF-8".into()))?;
        let spec: Spec = spec
            .parse()
            .map_err(|e: SpecError| self.corrupt(format!("bad spec {spec:?}: {e}")))?;
        Ok((spec, spec_len))
    }

    /// The payload's encoding, whether it is compressed, and its count of extra tables.
    fn layout(&self, r: &mut impl Read) -> Result<(Encoding, bool, usize), LoadError> {
        let [enc, comp, extra, reserved] = read_array(r).map_err(|e| self.short(e))?;
        let encoding = match enc {
            0 => Encoding::F32,
            1 => Encoding::I16,
            e => return Err(self.corrupt(format!("unknown encoding {e}"))),
        };
        let compressed = match comp {
            0 => false,
            1 => true,
            c => return Err(self.corrupt(format!("unknown compression {c}"))),
        };
        if reserved != 0 {
            return Err(self.corrupt("the reserved byte is not zero".into()));
        }
        if !matches!(extra, 0 | 2) || (extra > 0 && encoding != Encoding::F32) {
            return Err(self.corrupt(format!(
                "{extra} extra tables in {encoding:?} (0, or 2 in f32)"
            )));
        }
        Ok((encoding, compressed, extra as usize))
    }

    /// The note (lossy UTF-8) and its length in bytes.
    fn note(&self, r: &mut impl Read) -> Result<(String, u32), LoadError> {
        let note_len = u32::from_le_bytes(read_array(r).map_err(|e| self.short(e))?);
        if note_len > MAX_NOTE_LEN {
            return Err(self.corrupt(format!("note length {note_len} (at most {MAX_NOTE_LEN})")));
        }
        let mut note = vec![0u8; note_len as usize];
        r.read_exact(&mut note).map_err(|e| self.short(e))?;
        Ok((String::from_utf8_lossy(&note).into_owned(), note_len))
    }

    /// An uncompressed payload must be exactly the spec's weights (and extra tables).
    fn check_payload_len(
        &self,
        spec: &Spec,
        encoding: Encoding,
        compressed: bool,
        extra: usize,
        payload_len: u64,
    ) -> Result<(), LoadError> {
        let raw_len = match encoding {
            Encoding::F32 => 4 * spec.weight_count() as u64,
            Encoding::I16 => 4 * spec.table_count() as u64 + 2 * spec.weight_count() as u64,
        };
        let raw_len = raw_len * (1 + extra as u64);
        if !compressed && payload_len != raw_len {
            return Err(self.corrupt(format!(
                "payload of {payload_len} bytes; the spec's weights need {raw_len}"
            )));
        }
        Ok(())
    }
}

/// Reads the spec's weights from a decompressed payload.
fn read_weights(r: &mut impl Read, spec: &Spec, encoding: Encoding) -> io::Result<Vec<AtomicU32>> {
    let count = spec.weight_count();
    let mut weights = super::weight_vec(count);
    match encoding {
        Encoding::F32 => {
            let mut buf = vec![0u8; 4 * CHUNK];
            while weights.len() < count {
                let n = (count - weights.len()).min(CHUNK);
                r.read_exact(&mut buf[..4 * n])?;
                weights.extend(
                    buf[..4 * n]
                        .chunks_exact(4)
                        .map(|b| AtomicU32::new(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
                );
            }
        }
        Encoding::I16 => {
            let mut scales = Vec::with_capacity(spec.table_count());
            for _ in 0..spec.table_count() {
                let s = f32::from_le_bytes(read_array(r)?);
                if !s.is_finite() || s <= 0.0 {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("bad i16 scale {s}"),
                    ));
                }
                scales.push(s);
            }
            let mut buf = vec![0u8; 2 * CHUNK];
            for (len, &scale) in spec.table_lens().zip(&scales) {
                let mut left = len;
                while left > 0 {
                    let n = left.min(CHUNK);
                    r.read_exact(&mut buf[..2 * n])?;
                    weights.extend(buf[..2 * n].chunks_exact(2).map(|b| {
                        AtomicU32::new((i16::from_le_bytes([b[0], b[1]]) as f32 * scale).to_bits())
                    }));
                    left -= n;
                }
            }
        }
    }
    Ok(weights)
}

#[cfg(test)]
mod tests {
    use super::super::Spec;
    use super::*;
    use std::fs;

    fn small_net() -> Network {
        let net = Network::new("012,4567,f".parse::<Spec>().unwrap(), 0.0);
        for i in 0..net.weight_count() {
            // A spread of values, some negative, not all representable in i16 steps.
            net.set_weight(i, ((i * 7919) % 2001) as f32 * 0.37 - 300.0);
        }
        net
    }

    fn boards() -> Vec<crate::engine::Board> {
        [
            "0123456789abcdef",
            "1100220000000003",
            "fedcba9876543210",
            "0000000000000000",
        ]
        .iter()
        .map(|h| crate::engine::Board::from_hex(h).unwrap())
        .collect()
    }

    #[test]
    fn save_then_load_gives_identical_values() {
        let dir = tempfile::tempdir().unwrap();
        let net = small_net();
        net.set_games(12345);
        for format in [
            WeightsFormat::CHECKPOINT,
            WeightsFormat {
                encoding: Encoding::F32,
                compressed: true,
            },
        ] {
            let path = dir.path().join("n.bin");
            net.save_as(&path, format, "a note").unwrap();
            let back = Network::load(&path).unwrap();
            assert_eq!(back.spec(), net.spec());
            assert_eq!(back.games(), 12345);
            assert_eq!(back.note(), "a note");
            // `save` keeps the note and the weights exactly.
            let again = dir.path().join("again.bin");
            back.save(&again).unwrap();
            let back = Network::load(&again).unwrap();
            assert_eq!(back.note(), "a note");
            for i in 0..net.weight_count() {
                assert_eq!(back.weight(i), net.weight(i), "weight {i}");
            }
            for b in boards() {
                assert_eq!(back.value(b), net.value(b));
            }
        }
    }

    #[test]
    fn i16_keeps_each_weight_within_half_a_step() {
        let dir = tempfile::tempdir().unwrap();
        let net = small_net();
        let path = dir.path().join("n.bin.gz");
        net.save_as(&path, WeightsFormat::SHIP, "").unwrap();
        let back = Network::load(&path).unwrap();
        // Largest |w| per table is at most 0.37*2000 - 300 = 440 or 300: step 440/32767.
        let step = 440.0 / 32767.0;
        for i in 0..net.weight_count() {
            let (a, b) = (net.weight(i).unwrap(), back.weight(i).unwrap());
            assert!((a - b).abs() <= step / 2.0 + 1e-4, "weight {i}: {a} vs {b}");
        }
    }

    #[test]
    fn a_staged_network_saves_and_loads_with_a_scale_per_stage_table() {
        let dir = tempfile::tempdir().unwrap();
        let one = small_net();
        let net = one.promoted(&"012,4567,f@16384".parse().unwrap()).unwrap();
        // Stage 1's weights 100 times stage 0's: one i16 scale for both stages would make stage
        // 0's step 100 times coarser.
        let half = one.weight_count();
        for i in 0..half {
            net.set_weight(half + i, 100.0 * one.weight(i).unwrap());
        }
        for (name, format) in [
            ("f32", WeightsFormat::CHECKPOINT),
            ("i16", WeightsFormat::SHIP),
        ] {
            let path = dir.path().join(name);
            net.save_as(&path, format, "").unwrap();
            let back = Network::load(&path).unwrap();
            assert_eq!(back.spec().to_string(), "012,4567,f@16384");
            for i in 0..net.weight_count() {
                let (a, b) = (net.weight(i).unwrap(), back.weight(i).unwrap());
                // as in i16_keeps_each_weight_within_half_a_step, per stage
                let step = if i < half { 440.0 } else { 44000.0 } / 32767.0;
                assert!(
                    (a - b).abs() <= step / 2.0 + 1e-3,
                    "{name} weight {i}: {a} vs {b}"
                );
            }
        }
        // A one-stage spec is refused for it, by name.
        let path = dir.path().join("f32");
        assert!(matches!(
            Network::load_spec(&path, one.spec()),
            Err(LoadError::SpecMismatch { .. })
        ));
    }

    fn expect_err(path: &Path, spec: Option<&Spec>) -> LoadError {
        match spec {
            Some(s) => Network::load_spec(path, s).unwrap_err(),
            None => Network::load(path).unwrap_err(),
        }
    }

    #[test]
    fn truncated_corrupt_foreign_and_wrong_spec_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let net = small_net();
        for format in [WeightsFormat::CHECKPOINT, WeightsFormat::SHIP] {
            let path = dir.path().join("n.bin");
            net.save_as(&path, format, "note").unwrap();
            let good = fs::read(&path).unwrap();
            let name = path.display().to_string();

            // Truncated: cut at several places, header and payload.
            for cut in [5, 20, good.len() / 2, good.len() - 1] {
                fs::write(&path, &good[..cut]).unwrap();
                let e = expect_err(&path, None);
                let msg = e.to_string();
                assert!(msg.contains(&name), "{msg}");
                if cut == 5 {
                    assert!(matches!(e, LoadError::NotANetwork { .. }), "{msg}");
                } else {
                    assert!(matches!(e, LoadError::Truncated { .. }), "cut {cut}: {msg}");
                    assert!(msg.contains("truncated"), "{msg}");
                }
            }

            // One flipped bit in the payload: the checksum (or the deflate stream) says so.
            let mut bad = good.clone();
            let at = good.len() - 10;
            bad[at] ^= 0x10;
            fs::write(&path, &bad).unwrap();
            let e = expect_err(&path, None);
            assert!(matches!(e, LoadError::Corrupt { .. }), "{e}");
            assert!(e.to_string().contains(&name));

            // A flipped bit in the stored checksum itself.
            let mut bad = good.clone();
            let last = bad.len() - 1;
            bad[last] ^= 1;
            fs::write(&path, &bad).unwrap();
            let e = expect_err(&path, None);
            assert!(e.to_string().contains("checksum mismatch"), "{e}");

            // Bytes after the checksum.
            let mut bad = good.clone();
            bad.push(0);
            fs::write(&path, &bad).unwrap();
            assert!(matches!(expect_err(&path, None), LoadError::Corrupt { .. }));

            // An extra-table count other than 0 or 2 (or extras in i16).
            let mut bad = good.clone();
            let at = 8 + 4 + 4 + net.spec().to_string().len() + 2;
            bad[at] = 1;
            fs::write(&path, &bad).unwrap();
            let e = expect_err(&path, None);
            assert!(e.to_string().contains("extra tables"), "{e}");

            // Another version.
            let mut bad = good.clone();
            bad[8] = 9;
            fs::write(&path, &bad).unwrap();
            let e = expect_err(&path, None);
            assert!(matches!(e, LoadError::Version { found: 9, .. }), "{e}");

            // Not a network at all.
            fs::write(&path, b"P6\n4 4\n255\nsome image bytes").unwrap();
            let e = expect_err(&path, None);
            assert!(matches!(e, LoadError::NotANetwork { .. }), "{e}");
            assert!(e.to_string().contains(&name));

            // The right file, the wrong spec.
            fs::write(&path, &good).unwrap();
            let other: Spec = "012,4567".parse().unwrap();
            let e = expect_err(&path, Some(&other));
            let msg = e.to_string();
            assert!(matches!(e, LoadError::SpecMismatch { .. }), "{msg}");
            assert!(msg.contains("012,4567,f") && msg.contains(&name), "{msg}");
            assert!(Network::load_spec(&path, net.spec()).is_ok());
        }
        // A missing file.
        let e = expect_err(&dir.path().join("none.bin"), None);
        assert!(matches!(e, LoadError::Io { .. }) && e.to_string().contains("none.bin"));
    }

    #[test]
    fn a_failed_save_names_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-dir").join("n.bin");
        let e = small_net()
            .save_as(&path, WeightsFormat::CHECKPOINT, "")
            .unwrap_err();
        assert!(e.to_string().contains("missing-dir"), "{e}");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
