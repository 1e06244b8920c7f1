//! Contacts (placeholder).
