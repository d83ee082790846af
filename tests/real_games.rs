//! Tests: real_games.
