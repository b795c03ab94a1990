//! The real binary in a pseudo-terminal, read through a VT parser: one test
//! binary, so that its tests (which mostly wait on the console's screen)
//! run side by side instead of one binary after another.

#[path = "../pty_console/mod.rs"]
mod pty_console;

mod actions_e2e;
mod e2e_demo;
mod e2e_trust;
mod terminal_gone;
