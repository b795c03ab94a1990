//! Notices: the short messages of the footer and the `H` overlay. One
//! owner: a view asks for one through its [`crate::app::views::Outcome`],
//! the action path raises them through [`crate::app::model::Model::notify`];
//! only `update` decides when they are raised and when the footer's one
//! leaves (after [`NOTICE_TTL`] of the operator's time).

use std::collections::VecDeque;
use std::time::Duration;

use jiff::Timestamp;

/// How long a notice stays in the footer, in real seconds (the operator's
/// time, `Msg::RealTime`: a demo at `--speed 60` must not blink it away).
pub const NOTICE_TTL: Duration = Duration::from_secs(10);
/// How many notices are remembered.
const NOTICE_HISTORY: usize = 50;

/// A short message in the footer.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub text: String,
    pub level: NoticeLevel,
    pub at: Timestamp,
    /// When it was raised, in the operator's time (`Model::real_time`):
    /// it leaves the footer after real seconds, not simulated ones.
    pub real_at: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

/// The footer's notice and the recent ones.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Notices {
    current: Option<Notice>,
    recent: VecDeque<Notice>,
}

impl Notices {
    /// The notice the footer shows, if one is up.
    pub fn current(&self) -> Option<&Notice> {
        self.current.as_ref()
    }

    /// The recent notices, oldest first (bounded).
    pub fn recent(&self) -> impl DoubleEndedIterator<Item = &Notice> {
        self.recent.iter()
    }

    /// Puts `notice` in the footer and the recent ones.
    pub fn raise(&mut self, notice: Notice) {
        self.recent.push_back(notice.clone());
        while self.recent.len() > NOTICE_HISTORY {
            self.recent.pop_front();
        }
        self.current = Some(notice);
    }

    /// The footer's notice leaves once it has been up [`NOTICE_TTL`] of the
    /// operator's time; it stays in the recent ones.
    pub fn expire(&mut self, real_time: Duration) {
        if let Some(n) = &self.current
            && real_time.saturating_sub(n.real_at) > NOTICE_TTL
        {
            self.current = None;
        }
    }
}
