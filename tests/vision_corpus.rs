//! Tests: vision_corpus.
