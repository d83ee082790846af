//! Tests: play_replay.
