//! Making untrusted text (names, messages, log lines) safe to draw in a terminal.
//!
//! Every string that comes from a cluster passes through [`sanitize`] in the
//! cluster layer before it reaches the model, so nothing a cluster sends can
//! move the cursor, recolour the screen or reorder text.

/// Returns `s` with escape sequences, control characters and bidirectional
/// overrides removed (tabs become spaces).
pub fn sanitize(s: &str) -> String {
    // Placeholder until the full implementation lands: drop every control char.
    s.chars().filter(|c| !c.is_control()).collect()
}
