//! One integration test binary; a module per area.
mod cli;
mod engine;
mod play_replay;
mod real_games;
mod train;
mod vision_corpus;
