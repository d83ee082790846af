//! play stage (under construction).
