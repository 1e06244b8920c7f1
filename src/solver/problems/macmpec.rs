//! MacMPEC problems (placeholder)
