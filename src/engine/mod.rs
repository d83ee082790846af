//! engine stage (under construction).
