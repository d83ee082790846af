//! input stage (under construction).
