//! The session report as written: its file name and text. What it says is
//! `super`'s; this is what the runtime is asked to write.

/// A rendered report and the file name it is written under (in the state
/// directory, next to the audit log).
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub file_name: String,
    pub markdown: String,
}
