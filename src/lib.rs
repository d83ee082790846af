//! bot2048: plays a real, external 2048 game the way a person does.
//!
//! The pipeline, one module a stage, data flowing one way:
//!
//! ```text
//! capture::Frame ──vision──▶ vision::Reading ──▶ engine::Board ──solver──▶ solver::Decision ──input──▶ key
//!                                     ▲                                                     │
//!                                     └──────────── play::Mirror (expected boards) ◀────────┘
//! ```
//!
//! - [`engine`]: bitboard model of 2048 (moves, merges, score, spawn); no I/O.
//! - [`solver`]: the `Solver` and `Evaluator` seams, the solvers, and their registry.
//! - [`sim`]: many games on the engine, in parallel, and their statistics (`bot2048 sim`).
//! - [`vision`]: finds the grid in an image and reads every cell, through a calibration profile.
//! - [`capture`]: the `FrameSource` trait and `Frame`: frames of a game, live or recorded files.
//! - [`input`]: the `KeySink` trait: arrow keys to the verified game window, or recorded.
//! - [`platform`]: the desktop (X11, also under XWayland): windows, frames, keys, focus checks.
//! - [`play`]: the loop capture → read → mirror → solve → key → verify.
//! - [`cli`]: the `bot2048` subcommands.
//! - [`fsio`]: every file the crate writes, written atomically.
//! - [`stats`]: medians, quantiles and means, for `sim`'s summaries and `play`'s.
#![warn(missing_docs)]

pub mod capture;
pub mod cli;
pub mod engine;
pub mod fsio;
pub mod input;
pub mod platform;
pub mod play;
pub mod sim;
pub mod solver;
pub mod stats;
pub mod vision;
