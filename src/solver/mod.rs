//! solver stage (under construction).
