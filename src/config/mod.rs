//! Theme and keymap files: built-in defaults, loading by name or path, validation.
pub mod expected;
pub mod keymap;
pub mod theme;
