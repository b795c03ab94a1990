//! Turning typed table cells into text, for the rows on screen only: ages
//! against the clock of the frame (each on the clock of the API server that
//! stamped it), times of day, and what an empty table says.

use std::borrow::Cow;

use crate::app::model::Model;
use crate::app::tables::machines::{nmr_cell, state_cell};
use crate::app::tables::{Cell, Empty};
use crate::domain::history::History;
use crate::domain::join::MachineRow;
use crate::domain::objects::Kind;
use crate::ui::format;

/// The text of `cell` now.
pub fn text<'a>(model: &Model, cell: &'a Cell) -> Cow<'a, str> {
    match cell {
        Cell::Text(t) => Cow::Borrowed(t),
        Cell::Age {
            before,
            at: Some(at),
            clock,
            after,
        } => Cow::Owned(format!(
            "{before}{}{after}",
            format::age(model.now_on(*clock), *at)
        )),
        Cell::Age { at: None, .. } => match cell.words() {
            w if w.is_empty() => Cow::Borrowed("-"),
            w => w,
        },
        Cell::Clock(t) => Cow::Owned(format::clock(*t)),
    }
}

/// The Machines view's STATE of `row` (`Deploy 35m12s`), as drawn now.
pub fn state_text(row: &MachineRow, history: &History, model: &Model) -> String {
    text(model, &state_cell(row, history)).into_owned()
}

/// The Machines view's NMR of `row` (`os 39m00s terminating`), as drawn now.
pub fn nmr_text(row: &MachineRow, model: &Model) -> String {
    text(model, &nmr_cell(row)).into_owned()
}

/// The state of the watches on `kinds`, for empty tables.
pub fn watch_state(model: &Model, kinds: &[Kind]) -> String {
    let parts: Vec<String> = kinds
        .iter()
        .map(|k| {
            let what = match model.health.get(k) {
                None => "watch starting".to_string(),
                Some(h) if !h.connected => match &h.last_error {
                    Some(e) => format!("watch disconnected: {e}"),
                    None => "watch connecting".to_string(),
                },
                Some(h) => match (&h.last_error, h.last_event) {
                    (Some(e), _) => format!("watch degraded: {e}"),
                    (None, Some(t)) => {
                        format!("watch ok, last event {} ago", format::age(model.now, t))
                    }
                    (None, None) => "watch ok, nothing received".to_string(),
                },
            };
            if kinds.len() > 1 {
                format!("{}: {what}", k.api_kind())
            } else {
                what
            }
        })
        .collect();
    parts.join("; ")
}

/// What an empty table says now.
pub fn empty_text(model: &Model, empty: &Empty) -> String {
    match empty {
        Empty::NotYet { noun, kinds } => format!("no {noun} yet ({})", watch_state(model, kinds)),
        Empty::Text(t) => t.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::model::View;
    use crate::app::tables::table;
    use crate::cluster::events::WatchHealth;
    use crate::config::keymap::Keymap;
    use crate::domain::fixtures;
    use crate::domain::objects::ClusterId;

    fn model() -> Model {
        Model::new(
            Default::default(),
            Keymap::default_keymap(),
            fixtures::mid_update_now(),
        )
    }

    #[test]
    fn empty_tables_say_no_rows_yet_and_the_watch_state() {
        let mut m = model();
        let t = table(&m, View::Requests);
        let text = empty_text(&m, &t.empty);
        assert!(text.starts_with("no maintenance requests yet"), "{text}");
        assert!(text.contains("watch starting"), "{text}");
        m.health.insert(
            Kind::LcmClusterState,
            WatchHealth {
                cluster: ClusterId::Mgmt,
                connected: false,
                last_event: None,
                last_error: Some("connection refused".into()),
                retry_at: None,
                problem: Default::default(),
            },
        );
        let t = table(&m, View::States);
        assert_eq!(
            empty_text(&m, &t.empty),
            "no cluster states yet (watch disconnected: connection refused)"
        );
    }

    #[test]
    fn ages_are_drawn_against_the_clock_of_the_server_that_stamped_them() {
        let mut m = model();
        let at = fixtures::at("10:29");
        let cell = Cell::since("os ", Some(at), ClusterId::Mosk, " terminating");
        assert_eq!(text(&m, &cell), "os 1m00s terminating");
        // The MOSK API server's clock runs 30 s ahead of the management one.
        m.set_clock_offset(ClusterId::Mosk, jiff::SignedDuration::from_secs(30));
        assert_eq!(text(&m, &cell), "os 1m30s terminating");
        assert_eq!(text(&m, &Cell::age(None, ClusterId::Mgmt)), "-");
        assert_eq!(
            text(&m, &Cell::since("os", None, ClusterId::Mosk, "")),
            "os"
        );
        assert_eq!(text(&m, &Cell::Clock(at)), "10:29:00");
    }
}
