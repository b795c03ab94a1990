use super::line::short_time;
use super::*;

#[test]
fn klog_lines_get_their_level_from_the_header_letter() {
    let level = |raw: &str| LogLine::parse(0, "p", raw).level;
    let header = " 01:03:05.976662       1 warnings.go:70] metadata.finalizers";
    assert_eq!(level(&format!("I1124{header}")), Some(LogLevel::Info));
    assert_eq!(level(&format!("W1124{header}")), Some(LogLevel::Warn));
    assert_eq!(level(&format!("E1124{header}")), Some(LogLevel::Error));
    assert_eq!(level(&format!("F1124{header}")), Some(LogLevel::Error));
    // Not a klog header: no level guessed from a word that only starts
    // like one.
    assert_eq!(level("I11 not a header"), None);
    assert_eq!(level("Installing 3 charts"), None);
    // `level ≥ error` hides klog info and warning lines.
    let mut pane = LogPane {
        min_level: LogLevel::Error,
        ..Default::default()
    };
    pane.push(
        "p",
        &[
            format!("I1124{header}"),
            format!("W1124{header}"),
            format!("E1124{header}"),
        ],
    );
    let shown: Vec<Option<LogLevel>> = pane.visible().iter().map(|l| l.level).collect();
    assert_eq!(shown, vec![Some(LogLevel::Error)]);
}

#[test]
fn parses_zap_json_and_plain_text() {
    let raw = r#"{"level":"error","ts":"2026-01-01T00:00:00Z","logger":"lcm-controller","msg":"drain failed","machine":"m-1"}"#;
    let j = Parts::parse(raw);
    assert_eq!(j.level, Some(LogLevel::Error));
    assert_eq!(j.msg, "drain failed");
    assert_eq!(j.logger.as_deref(), Some("lcm-controller"));
    assert_eq!(j.fields, vec![("machine".to_string(), "m-1".to_string())]);
    // What the buffer keeps of it: the level and the text as shown.
    let kept = LogLine::parse(0, "p", raw);
    assert_eq!(kept.level, Some(LogLevel::Error));
    assert_eq!(kept.text(), "00:00:00 ERROR drain failed machine=m-1");
    let p = Parts::parse("WARNING: something odd");
    assert_eq!(p.level, Some(LogLevel::Warn));
    assert_eq!(p.msg, "WARNING: something odd");
    assert_eq!(
        LogLine::parse(1, "p", "WARNING: something odd").text(),
        "WARNING: something odd"
    );
    let broken = Parts::parse("{not json");
    assert_eq!(broken.msg, "{not json");
    assert_eq!(broken.level, None);
}

#[test]
fn json_escapes_are_sanitized_after_decoding() {
    // The line as the cluster layer passes it on: sanitized, the escapes
    // still JSON text.
    let raw = r#"{"level":"info","msg":"a\u001b]0;evil title\u0007b\u001b[2Jc\u202ed\r\u009b31me","\u001b]52;c;Zm9v\u0007key":"\u009d52;c;Zm9v\u009cv\u001bP1$r0m\u001b\\w","logger":"x\u001b_apc\u001b\\y","ts":"\u2066t\u2069"}"#;
    assert_eq!(crate::sanitize::sanitize(raw), raw, "inert before decoding");
    let l = Parts::parse(raw);
    assert_eq!(l.msg, "abcd e");
    assert_eq!(l.logger.as_deref(), Some("xy"));
    assert_eq!(l.ts.as_deref(), Some("t"));
    assert_eq!(l.fields, vec![("key".to_string(), "vw".to_string())]);
    let all = format!("{}{:?}{:?}{:?}", l.msg, l.logger, l.ts, l.fields);
    assert!(
        !all.chars()
            .any(|c| c.is_control() || crate::sanitize::is_format_char(c)),
        "{all:?}"
    );
    // A nested value is drawn as JSON text, its strings decoded and
    // sanitized: the sequence is gone, not spelled out as `\u001b[31m`.
    let nested =
        Parts::parse(r#"{"msg":"m","err":{"e\u202e":["\u001b[31mred","\u009d0;t\u0007x"]}}"#);
    assert_eq!(nested.fields[0].1, r#"{"e":["red","x"]}"#);
}

#[test]
fn buffer_is_bounded_and_filters() {
    let mut pane = LogPane::default();
    let lines: Vec<String> = (0..LOG_CAPACITY + 10)
        .map(|i| {
            format!(
                r#"{{"level":"info","msg":"line {i}","node":"kaas-node-{}"}}"#,
                i % 3
            )
        })
        .collect();
    pane.push("p", &lines);
    assert_eq!(pane.lines.len(), LOG_CAPACITY);
    assert_eq!(pane.dropped, 10);
    assert_eq!(
        pane.lines.front().unwrap().text(),
        "INFO  line 10 node=kaas-node-1"
    );
    pane.subject = vec!["KAAS-NODE-1".into()];
    let shown = pane.visible();
    assert_eq!(
        shown.len(),
        (10..LOG_CAPACITY + 10).filter(|i| i % 3 == 1).count()
    );
    assert!(shown.iter().all(|l| l.text().contains("kaas-node-1")));
    pane.subject.clear();
    pane.min_level = LogLevel::Warn;
    assert!(pane.visible().is_empty());
}

#[test]
fn short_time_keeps_odd_timestamps_whole() {
    assert_eq!(short_time("2025-03-04T10:28:41.123Z"), "10:28:41");
    assert_eq!(short_time("2025-03-04T10:28"), "2025-03-04T10:28");
    // Byte 8 after the `T` falls inside `é`: no panic, the text as it came.
    assert_eq!(short_time("xT1234567é"), "xT1234567é");
}

#[test]
fn search_matches_ignore_case() {
    let hay: Vec<char> = "Drain failed; DRAIN again".chars().collect();
    let needle: Vec<char> = "drain".chars().collect();
    assert_eq!(match_ranges(&hay, &needle), vec![(0, 5), (14, 19)]);
    assert!(match_ranges(&hay, &[]).is_empty());
}

#[test]
fn the_message_column_is_where_wrapped_lines_continue() {
    let zap = LogLine::parse(
        0,
        "p",
        r#"{"level":"info","ts":"2025-03-04T10:28:41Z","msg":"drain","node":"n"}"#,
    );
    assert_eq!(zap.text(), "10:28:41 INFO  drain node=n");
    assert_eq!(&zap.text()[zap.msg_at..], "drain node=n");
    let klog = LogLine::parse(1, "p", "W1124 01:03:05.976662       1 warnings.go:70] gone");
    assert_eq!(&klog.text()[klog.msg_at..], "gone");
    assert_eq!(LogLine::parse(2, "p", "plain words").msg_at, 0);
}

fn pane_with(lines: &[&str]) -> LogPane {
    let mut pane = LogPane::default();
    let lines: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    pane.push("p", &lines);
    pane
}

#[test]
fn search_starts_at_the_bottom_and_n_goes_up_from_the_first_press() {
    let mut pane = pane_with(&["a", "needle 1", "b", "needle 2", "c", "needle 3"]);
    assert_eq!(pane.search_for("NEEDLE"), SearchJump::Moved);
    assert_eq!(pane.current_match, Some(5));
    assert_eq!(pane.match_position(), (Some(3), 3));
    assert_eq!(pane.step_match(true), SearchJump::Moved);
    assert_eq!((pane.current_match, pane.anchor), (Some(3), Some(3)));
    assert_eq!(pane.step_match(true), SearchJump::Moved);
    assert_eq!(pane.current_match, Some(1));
    assert_eq!(
        pane.step_match(true),
        SearchJump::Wrapped { to_newest: true }
    );
    assert_eq!(pane.current_match, Some(5));
    assert_eq!(
        pane.step_match(false),
        SearchJump::Wrapped { to_newest: false }
    );
    assert_eq!(pane.match_position(), (Some(1), 3));
    assert!(pane.paused());
}

#[test]
fn the_filtered_lines_follow_arrivals_drops_and_filter_changes() {
    let mut pane = LogPane::default();
    let line = |i: usize| {
        format!(
            r#"{{"level":"{}","msg":"line {i}"}}"#,
            if i.is_multiple_of(2) { "info" } else { "error" }
        )
    };
    let first: Vec<String> = (0..LOG_CAPACITY).map(line).collect();
    pane.push("p", &first);
    pane.set_search(Some("LINE 1".into()));
    let count = |pane: &LogPane| pane.match_position().1;
    // line 1, 10..19, 100..199, 1000..1999, 10000..19999
    assert_eq!(count(&pane), 1 + 10 + 100 + 1000 + 10000);
    pane.cycle_min_level(); // info
    pane.cycle_min_level(); // warn: only the odd (error) lines
    assert_eq!(count(&pane), 1 + 5 + 50 + 500 + 5000);
    // 5 new lines push the 5 oldest out: line 1 was a match, 20001 and
    // 20003 are new ones.
    pane.push(
        "p",
        &(LOG_CAPACITY..LOG_CAPACITY + 5)
            .map(line)
            .collect::<Vec<_>>(),
    );
    assert_eq!(count(&pane), 5 + 50 + 500 + 5000);
    assert_eq!(pane.filtered().shown.len(), LOG_CAPACITY / 2);
    let rebuilt = {
        let mut p = pane.clone();
        p.min_level = LogLevel::Debug;
        p.settle();
        p.min_level = LogLevel::Warn;
        p.settle();
        p.filtered().into_owned()
    };
    assert_eq!(rebuilt.shown, pane.filtered().shown);
    assert_eq!(rebuilt.matches, pane.filtered().matches);
}
