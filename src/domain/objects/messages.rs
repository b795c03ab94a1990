//! The free-text messages the rules read, each kept as written (sanitized:
//! what the screen shows and `/` searches) together with what it says,
//! parsed once when the object is built. A watch event re-derives the
//! attention queue, the joined rows, the history and the table on screen;
//! each of them reads the parsed value behind the object's `Arc` instead of
//! parsing the text again. Text and parsed value are built together and
//! cannot disagree: a test that changes a message builds a new one.

use std::fmt;
use std::ops::Deref;

use crate::domain::drainmsg::{self, DrainFailure, LocksStillActive};
use crate::domain::lockmsg::{self, LockMessage};

/// A workload lock's `status.errorMessage` and what it says
/// ([`lockmsg::parse`]).
#[derive(Clone)]
pub struct ErrorMessage {
    text: String,
    parsed: LockMessage,
}

impl ErrorMessage {
    pub fn new(text: impl Into<String>) -> ErrorMessage {
        let text = text.into();
        let parsed = lockmsg::parse(&text);
        ErrorMessage { text, parsed }
    }
    /// The message as written, the Rockoon timestamp included.
    pub fn as_str(&self) -> &str {
        &self.text
    }
    /// What the message says.
    pub fn parsed(&self) -> &LockMessage {
        &self.parsed
    }
}

/// An LCMClusterState's `status.message` and, for LCM's drain, which node
/// locks it says still hold the node ([`drainmsg::parse`]).
#[derive(Clone)]
pub struct StateMessage {
    text: String,
    locks_still_active: Option<LocksStillActive>,
}

impl StateMessage {
    pub fn new(text: impl Into<String>) -> StateMessage {
        let text = text.into();
        let locks_still_active = drainmsg::parse(&text);
        StateMessage {
            text,
            locks_still_active,
        }
    }
    pub fn as_str(&self) -> &str {
        &self.text
    }
    /// The node locks the message says still hold the node, if it says so.
    pub fn locks_still_active(&self) -> Option<&LocksStillActive> {
        self.locks_still_active.as_ref()
    }
}

/// An LCMMachine's `status.kubernetesCordonDrainError` and what it says
/// ([`drainmsg::failure`]).
#[derive(Clone)]
pub struct DrainError {
    text: String,
    failure: DrainFailure,
}

impl DrainError {
    pub fn new(text: impl Into<String>) -> DrainError {
        let text = text.into();
        let failure = drainmsg::failure(&text);
        DrainError { text, failure }
    }
    pub fn as_str(&self) -> &str {
        &self.text
    }
    /// The pod the drain could not move and why.
    pub fn failure(&self) -> &DrainFailure {
        &self.failure
    }
}

// Each reads as its text wherever a string is read (`as_deref()`, `{}`,
// `{:?}`, equality): the parsed value follows from it.
macro_rules! reads_as_text {
    ($t:ty) => {
        impl Deref for $t {
            type Target = str;
            fn deref(&self) -> &str {
                &self.text
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.text, f)
            }
        }
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.text, f)
            }
        }
        impl PartialEq for $t {
            fn eq(&self, other: &Self) -> bool {
                self.text == other.text
            }
        }
    };
}

reads_as_text!(ErrorMessage);
reads_as_text!(StateMessage);
reads_as_text!(DrainError);
