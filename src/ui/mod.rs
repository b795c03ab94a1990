//! Rendering: one file per view or dialog; a pure function of the model.
pub mod format;
