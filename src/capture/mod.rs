//! capture stage (under construction).
