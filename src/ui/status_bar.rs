//! The status bar: both contexts, the namespace and cluster, watch health,
//! the age of the last event, the log follower's state, and the API servers'
//! clock offsets when they are off by more than a few seconds. When it does not
//! fit, the less important parts go first; the contexts and the watch health
//! always stay (contexts shortened in the middle, the health in a shorter
//! form, never cut mid-word).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::model::Model;
use crate::config::theme::Theme;
use crate::domain::objects::{ClusterId, Kind};
use crate::ui::format;

const SEP: &str = " │ ";
/// The MOSK context's Nodes are not the followed cluster's (the Overview
/// says which and why).
const MISMATCH_BADGE: &str = "MOSK CONTEXT MISMATCH: writes refused";
/// The fewest characters a context name is shortened to while the watch
/// summary still fits in its longest form.
const CONTEXT_MIN: usize = 11;
/// The fewest characters a context name is ever shortened to.
const CONTEXT_FLOOR: usize = 7;

/// `watches 18/18 ok`, `1 degraded: nodes (connection refused, 12s)`,
/// `watches 8/10 ok, 2 starting`, `…, 1 CRD missing`.
#[cfg(test)]
fn watch_summary(model: &Model) -> String {
    watch_forms(model).swap_remove(0)
}

/// The watch summary in ever shorter forms, longest first: with each
/// degraded watch's error and age, without the age, without the error, and
/// the counts alone. The status bar takes the longest that fits.
fn watch_forms(model: &Model) -> Vec<String> {
    let watched: Vec<Kind> = Kind::ALL
        .into_iter()
        .filter(|k| !model.missing_kinds.contains_key(k))
        .collect();
    let mut ok = 0;
    let mut starting = 0;
    // (kind, error, since)
    let mut degraded: Vec<(String, String, String)> = Vec::new();
    for k in &watched {
        match model.health.get(k) {
            None => starting += 1,
            Some(h) if h.connected && h.last_error.is_none() => ok += 1,
            Some(h) => {
                let err = h.last_error.clone().unwrap_or_else(|| {
                    if h.connected {
                        "degraded"
                    } else {
                        "disconnected"
                    }
                    .into()
                });
                let since = h
                    .last_event
                    .map(|t| format!(", {}", format::age(model.now, t)))
                    .unwrap_or_default();
                degraded.push((k.plural().to_string(), err, since));
            }
        }
    }
    let mut tail = String::new();
    if starting > 0 {
        tail.push_str(&format!(", {starting} starting"));
    }
    if !model.missing_kinds.is_empty() {
        tail.push_str(&format!(", {} CRD missing", model.missing_kinds.len()));
    }
    // Kinds over the per-kind object cap: named in full while there is room.
    let capped: Vec<String> = model.over_cap.iter().map(|(k, o)| o.warning(*k)).collect();
    let (long, short) = match capped.as_slice() {
        [] => (String::new(), String::new()),
        [one] => (format!(", {one}"), ", 1 kind capped".to_string()),
        [first, rest @ ..] => (
            format!(", {first} (+{} capped)", rest.len()),
            format!(", {} kinds capped", capped.len()),
        ),
    };
    let n = degraded.len();
    let form = |detail: &dyn Fn(&(String, String, String)) -> String, capped: &str| match degraded
        .as_slice()
    {
        [] => format!("watches {ok}/{} ok{tail}{capped}", watched.len()),
        [one] => format!("1 degraded: {}{tail}{capped}", detail(one)),
        [first, ..] => format!("{n} degraded: {} +{}{tail}{capped}", detail(first), n - 1),
    };
    let counts = |capped: &str| match n {
        0 => format!("{ok}/{} ok{tail}{capped}", watched.len()),
        _ => format!("{n} degraded{tail}{capped}"),
    };
    // A kind over its cap stays named longer than a watch's error: the
    // error has a pane border of its own, the objects not shown have not.
    let mut forms = vec![
        form(&|(k, e, since)| format!("{k} ({e}{since})"), &long),
        form(&|(k, e, _)| format!("{k} ({e})"), &long),
        form(&|(k, _, _)| k.clone(), &long),
        counts(&long),
        form(&|(k, _, _)| k.clone(), &short),
        counts(&short),
    ];
    forms.dedup();
    forms
}

/// An API server's clock is marked when it is this far from this machine's.
pub const CLOCK_MARK_MIN: jiff::SignedDuration = jiff::SignedDuration::from_secs(3);

/// `clock: mgmt API +5m02s ahead` (and `, mosk API -40s behind`): the API
/// servers whose clocks are more than [`CLOCK_MARK_MIN`] off this machine's.
/// Ages are measured on the management API server's clock either way. In
/// `demo` the simulator's clock runs at the demo's speed, so its offset grows
/// by design and says nothing: the mark names the speed instead
/// (`clock: simulated x10`), and a difference between the two simulated
/// clusters' clocks, if any, is still shown.
pub fn clock_mark(model: &Model) -> Option<String> {
    let mgmt = model.clock_offset(ClusterId::Mgmt);
    let mosk = model.clock_offset(ClusterId::Mosk);
    if let Some(speed) = model.session.demo_speed.filter(|s| *s != 1.0) {
        let between = mosk - mgmt;
        let skew = if between.abs() > CLOCK_MARK_MIN {
            format!(", mosk API {} the mgmt API", describe_offset(between))
        } else {
            String::new()
        };
        return Some(format!("clock: simulated x{speed}{skew}"));
    }
    let parts: Vec<String> = [(mgmt, "mgmt"), (mosk, "mosk")]
        .into_iter()
        .filter(|(off, _)| off.abs() > CLOCK_MARK_MIN)
        .map(|(off, name)| format!("{name} API {}", describe_offset(off)))
        .collect();
    let simulated = if model.session.demo.is_some() {
        "simulated, "
    } else {
        ""
    };
    (!parts.is_empty()).then(|| format!("clock: {simulated}{}", parts.join(", ")))
}

/// The connection badge and whether it is a warning: `mosk API: TLS NOT
/// VERIFIED`, `APIs: PLAIN HTTP`, `APIs: http (loopback)`; `None` when both
/// connections are verified.
pub(crate) fn connection_badge(s: &crate::app::model::SessionInfo) -> (Option<String>, bool) {
    let (m, k) = (s.mgmt_transport, s.mosk_transport);
    let warning = m.is_warning() || k.is_warning();
    let text = match (m.badge(), k.badge()) {
        (None, None) => return (None, false),
        (a, b) if a == b => format!("APIs: {}", a.unwrap_or_default()),
        (a, b) => [("mgmt API", a), ("mosk API", b)]
            .into_iter()
            .filter_map(|(name, badge)| badge.map(|t| format!("{name}: {t}")))
            .collect::<Vec<_>>()
            .join(", "),
    };
    (Some(text), warning)
}

/// `+5m02s ahead`, `-12s behind`.
fn describe_offset(offset: jiff::SignedDuration) -> String {
    let secs = offset.as_secs_f64().round() as i64;
    let text = format::duration_secs(secs.abs());
    if secs >= 0 {
        format!("+{text} ahead")
    } else {
        format!("-{text} behind")
    }
}

/// Cuts `s` to `max` characters by removing its middle (`kaas-m…@child-cl`):
/// context names differ at both ends.
fn shorten_middle(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    if max < 3 {
        return s.chars().take(max).collect();
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

pub(crate) fn draw(frame: &mut Frame, area: Rect, model: &Model, theme: &Theme) {
    let s = &model.session;
    let width = area.width as usize;
    let degraded = model
        .health
        .values()
        .any(|h| !h.connected || h.last_error.is_some())
        || !model.missing_kinds.is_empty()
        || !model.over_cap.is_empty();
    let forms = watch_forms(model);
    let watch_style = if degraded {
        theme.status_bar.patch(theme.warn)
    } else {
        Style::new()
    };
    // (text, priority: higher goes first when short of room)
    let cluster = if s.cluster_name.is_empty() {
        "cluster: not chosen".to_string()
    } else {
        format!("{}/{}", s.namespace, s.cluster_name)
    };
    let mut optional: Vec<(String, u8)> = vec![
        (cluster, 2),
        (
            match model.last_event {
                Some(t) => format!("event {} ago", format::age(model.now, t)),
                None => "no event yet".into(),
            },
            1,
        ),
        crate::ui::logs::status_bar_item(&model.logs),
    ];
    if let Some(mark) = clock_mark(model) {
        optional.push((mark, 0));
    }
    // An unverified connection is always said; the simulator's http on
    // loopback only when there is room (it is a fact, not a danger).
    let (connection, warning) = connection_badge(s);
    if let Some(text) = connection.as_ref().filter(|_| !warning) {
        optional.push((text.clone(), 0));
    }
    let connection = connection.filter(|_| warning);
    // The MOSK context is another cluster's: always said, like an
    // unverified connection (writes would go there).
    let mismatch = model
        .derived
        .mosk_context
        .is_mismatch()
        .then_some(MISMATCH_BADGE);
    let badge_len = [connection.as_deref(), mismatch]
        .into_iter()
        .flatten()
        .map(|c| c.chars().count() + SEP.chars().count())
        .sum::<usize>();
    let fixed = |a: &str, b: &str| format!(" mgmt: {a}  mosk: {b}");
    let len = |parts: &[(String, u8)], ctx: &str, watch: &str| {
        badge_len
            + ctx.chars().count()
            + SEP.chars().count()
            + watch.chars().count()
            + parts
                .iter()
                .map(|(t, _)| t.chars().count() + SEP.chars().count())
                .sum::<usize>()
    };
    let full_contexts = fixed(&s.mgmt_context, &s.mosk_context);
    while len(&optional, &full_contexts, &forms[0]) > width && !optional.is_empty() {
        let worst = optional
            .iter()
            .enumerate()
            .max_by_key(|(_, (_, p))| *p)
            .map(|(i, _)| i)
            .unwrap_or(0);
        optional.remove(worst);
    }
    // Then, least important first: the contexts are shortened in the middle
    // (to CONTEXT_MIN, then to CONTEXT_FLOOR characters each), then the watch
    // summary takes a shorter form. It is never cut in the middle.
    let (a, b) = (
        s.mgmt_context.chars().count(),
        s.mosk_context.chars().count(),
    );
    let contexts_within = |over: usize, floor: usize| {
        let keep = (a + b).saturating_sub(over).max(2 * floor.min(a.max(b)));
        let ka = (keep / 2).max(keep.saturating_sub(b)).min(a);
        fixed(
            &shorten_middle(&s.mgmt_context, ka),
            &shorten_middle(&s.mosk_context, keep.saturating_sub(ka)),
        )
    };
    let mut chosen: Option<(String, String)> = None;
    'forms: for form in &forms {
        let over = len(&optional, &full_contexts, form).saturating_sub(width);
        for floor in [CONTEXT_MIN, CONTEXT_FLOOR] {
            let contexts = contexts_within(over, floor);
            if len(&optional, &contexts, form) <= width {
                chosen = Some((contexts, form.clone()));
                break 'forms;
            }
        }
    }
    let (contexts, watch) = chosen.unwrap_or_else(|| {
        // Narrower than any terminal the console draws in: cut what is left.
        let contexts = contexts_within(usize::MAX, CONTEXT_FLOOR);
        let room = width.saturating_sub(contexts.chars().count() + SEP.chars().count());
        let short = forms.last().cloned().unwrap_or_default();
        (contexts, format::truncate(&short, room))
    });
    let mut spans = vec![Span::raw(contexts), Span::raw(SEP)];
    if let Some(badge) = mismatch {
        spans.push(Span::styled(badge, theme.status_bar.patch(theme.error)));
        spans.push(Span::raw(SEP));
    }
    if let Some(badge) = connection {
        spans.push(Span::styled(badge, theme.status_bar.patch(theme.warn)));
        spans.push(Span::raw(SEP));
    }
    spans.push(Span::styled(watch, watch_style));
    for (text, _) in optional {
        spans.push(Span::raw(SEP));
        spans.push(Span::raw(text));
    }
    frame.render_widget(
        Paragraph::new(Line::from(spans)).style(theme.status_bar),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cluster::events::WatchHealth;
    use crate::config::keymap::Keymap;

    #[test]
    fn the_watch_summary_counts_ok_starting_degraded_and_missing() {
        let now = crate::domain::fixtures::mid_update_now();
        let mut m = Model::new(Default::default(), Keymap::default_keymap(), now);
        assert_eq!(watch_summary(&m), "watches 0/18 ok, 18 starting");
        for k in Kind::ALL {
            m.health.insert(
                k,
                WatchHealth {
                    cluster: k.cluster(),
                    connected: true,
                    last_event: Some(now),
                    last_error: None,
                    retry_at: None,
                    problem: Default::default(),
                },
            );
        }
        assert_eq!(watch_summary(&m), "watches 18/18 ok");
        m.missing_kinds.insert(Kind::LcmClusterState, "404".into());
        assert_eq!(watch_summary(&m), "watches 17/17 ok, 1 CRD missing");
        for (k, e) in [
            (Kind::Node, "connection refused"),
            (Kind::VrouterPod, "timeout"),
        ] {
            let h = m.health.get_mut(&k).unwrap();
            h.connected = false;
            h.last_error = Some(e.into());
            h.last_event = Some(now - jiff::SignedDuration::from_secs(12));
        }
        assert_eq!(
            watch_summary(&m),
            "2 degraded: nodes (connection refused, 12s) +1, 1 CRD missing"
        );
    }

    #[test]
    fn a_kind_over_its_cap_is_named_and_outlasts_the_errors_when_short_of_room() {
        use crate::cluster::events::OverCap;
        let now = crate::domain::fixtures::mid_update_now();
        let mut m = Model::new(Default::default(), Keymap::default_keymap(), now);
        for k in Kind::ALL {
            m.health.insert(
                k,
                WatchHealth {
                    cluster: k.cluster(),
                    connected: k != Kind::Node,
                    last_event: Some(now),
                    last_error: (k == Kind::Node).then(|| "connection refused".into()),
                    retry_at: None,
                    problem: Default::default(),
                },
            );
        }
        let over = OverCap {
            cap: 20_000,
            not_shown: 31,
            at_least: false,
        };
        m.over_cap.insert(Kind::LcmMachine, over);
        let forms = watch_forms(&m);
        assert_eq!(
            forms[0],
            "1 degraded: nodes (connection refused, 0s), \
             LCMMachine: 20000-object cap reached, 31 not shown"
        );
        assert!(
            forms
                .contains(&"1 degraded, LCMMachine: 20000-object cap reached, 31 not shown".into()),
            "{forms:#?}"
        );
        assert_eq!(forms.last().unwrap(), "1 degraded, 1 kind capped");
        m.over_cap.insert(
            Kind::Node,
            OverCap {
                at_least: true,
                ..over
            },
        );
        assert_eq!(
            watch_forms(&m)[1],
            "1 degraded: nodes (connection refused), \
             LCMMachine: 20000-object cap reached, 31 not shown (+1 capped)"
        );
        assert_eq!(
            over.warning(Kind::Node).replace("31", "at least 31"),
            OverCap {
                at_least: true,
                ..over
            }
            .warning(Kind::Node)
        );
    }

    #[test]
    fn clocks_more_than_a_few_seconds_off_are_marked() {
        let now = crate::domain::fixtures::mid_update_now();
        let mut m = Model::new(Default::default(), Keymap::default_keymap(), now);
        assert_eq!(clock_mark(&m), None);
        m.set_clock_offset(ClusterId::Mosk, jiff::SignedDuration::from_secs(2));
        assert_eq!(clock_mark(&m), None, "within the Date header's resolution");
        m.set_clock_offset(ClusterId::Mgmt, jiff::SignedDuration::from_secs(302));
        assert_eq!(clock_mark(&m).unwrap(), "clock: mgmt API +5m02s ahead");
        m.set_clock_offset(ClusterId::Mosk, jiff::SignedDuration::from_secs(-40));
        assert_eq!(
            clock_mark(&m).unwrap(),
            "clock: mgmt API +5m02s ahead, mosk API -40s behind"
        );
        m.session.demo = Some("quick".into());
        assert_eq!(
            clock_mark(&m).unwrap(),
            "clock: simulated, mgmt API +5m02s ahead, mosk API -40s behind",
            "the demo's clock runs at its speed: say so"
        );
        // At a demo speed the growing offset says nothing: the speed is named,
        // and only a skew between the two simulated clusters is shown.
        m.session.demo_speed = Some(10.0);
        assert_eq!(
            clock_mark(&m).unwrap(),
            "clock: simulated x10, mosk API -5m42s behind the mgmt API"
        );
        m.set_clock_offset(ClusterId::Mosk, jiff::SignedDuration::from_secs(301));
        assert_eq!(clock_mark(&m).unwrap(), "clock: simulated x10");
    }

    #[test]
    fn contexts_are_shortened_in_the_middle() {
        assert_eq!(shorten_middle("mgmt-admin@kaas-mgmt", 9), "mgmt…mgmt");
        assert_eq!(shorten_middle("short", 9), "short");
    }
}
