//! vision stage (under construction).
