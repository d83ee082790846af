//! Recordings of played games, in one place: writing them (`--record`, [`record`]: frames and
//! `log.jsonl`, whose line types [`record::LogRecord`] the check reads back), playing them back
//! through the loop ([`ReplayGame`], for tests), and checking them against the engine
//! (`bot2048 replay`, [`verify`]). `play` re-exports [`record`], [`verify`] and [`ReplayGame`]
//! under their old paths (`play::record`, `play::verify`, `play::ReplayGame`).
pub mod record;
mod replay;
pub mod verify;

pub use replay::ReplayGame;
