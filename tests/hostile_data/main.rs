//! Hostile cluster data, end to end through the console's own code: a
//! property test (proptest) generates objects and log lines whose strings
//! carry escape sequences (CSI, OSC 0/8/52, DCS, APC, PM, SOS, raw and in
//! 8-bit form, raw and JSON-escaped), C0 and C1 controls, bidi overrides and
//! isolates, zero-width and combining characters, invalid UTF-8 and 1 MB
//! strings. Each case:
//!
//! 1. serializes every watched kind's object to JSON (control characters
//!    `\u`-escaped, as on the wire), decodes it as kube does
//!    (`serde_json::from_slice` into a `DynamicObject`) and converts it with
//!    `cluster::convert::convert`;
//! 2. reads each log line's wire bytes (with its `timestamps=true` prefix) as
//!    the log follower does: `read_line_capped` at the follower's byte cap,
//!    `decode`, `split_timestamp`, `cap_chars`, `sanitize`;
//! 3. feeds both into the model through `app::update::update` with
//!    `Msg::Cluster` messages (a re-list, then changes; log lines and status);
//! 4. draws screens with `ui::draw` on ratatui's real `CrosstermBackend` over
//!    a byte buffer, and checks the bytes with the `vte` parser
//!    ([`screen::check_bytes`]), the screen for remnants of injected
//!    sequences ([`screen::remnants`]), and each frame's time: under 50 ms of
//!    CPU time (the wall clock is reported too; on a machine shared with
//!    other builds it measures the others).
//!
//! Every view, the machine detail panel, help and the action dialogs are
//! drawn over the run: each case draws [`SCREENS_PER_CASE`] of them, in
//! turn, at 80x24, 120x36 and 160x48 in turn.
//!
//! `PROPTEST_CASES=N` sets the number of cases (default [`DEFAULT_CASES`],
//! 500, for a quick `cargo test`; `.ci/run` runs 10,000); the counts
//! are printed at the end (`--nocapture`) and published in
//! docs/RELIABILITY.md:
//! `cargo test --test hostile_data -- --nocapture`

#[path = "../cluster_support/mod.rs"]
mod cluster_support;
mod inputs;
mod screen;
mod wire;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent};
use futures::io::Cursor;
use inputs::{Hostile, LineForm, LogLineSpec, ObjectStrings, PIECE_KINDS};
use jiff::{SignedDuration, Timestamp};
use kube::api::DynamicObject;
use mosk_console::app::modal::Modal;
use mosk_console::app::model::{Model, SessionInfo, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::cluster::LogOptions;
use mosk_console::cluster::convert::convert;
use mosk_console::cluster::events::{ClusterEvent, WatchHealth};
use mosk_console::cluster::logs::lines::{cap_chars, decode, read_line_capped, split_timestamp};
use mosk_console::config::keymap::Keymap;
use mosk_console::config::theme::Theme;
use mosk_console::domain::objects::{Kind, Object};
use mosk_console::sanitize::sanitize;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Cases by default, sized for a quick `cargo test` (a few seconds in a
/// debug build); `.ci/run` runs `PROPTEST_CASES=10000`, the published run
/// (docs/RELIABILITY.md).
const DEFAULT_CASES: u32 = 500;

/// Screens each case draws.
const SCREENS_PER_CASE: usize = 2;
/// The frame budget the issue sets.
const FRAME_BUDGET: Duration = Duration::from_millis(50);
const SIZES: [(u16, u16); 3] = [(80, 24), (120, 36), (160, 48)];

/// What a case can draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Screen {
    View(View),
    MachineDetail,
    Help,
    /// An action key pressed on the Machines view, and its dialog (or the
    /// notice saying why not).
    Action(char),
}

fn screens() -> Vec<Screen> {
    let mut s: Vec<Screen> = View::ALL.iter().map(|&v| Screen::View(v)).collect();
    s.extend([
        Screen::MachineDetail,
        Screen::Help,
        Screen::Action('m'),
        Screen::Action('a'),
        Screen::Action('R'),
    ]);
    s
}

#[derive(Debug, Clone)]
struct Case {
    objects: ObjectStrings,
    lines: Vec<LogLineSpec>,
    pod: Hostile,
}

fn case() -> impl Strategy<Value = Case> {
    (
        inputs::object_strings(),
        prop::collection::vec(inputs::log_line(), 1..5),
        inputs::hostile(2_000),
    )
        .prop_map(|(objects, lines, pod)| Case {
            objects,
            lines,
            pod,
        })
}

#[derive(Debug, Default)]
struct Stats {
    cases: u64,
    strings: u64,
    pieces: BTreeMap<&'static str, u64>,
    objects: u64,
    malformed: u64,
    log_lines: BTreeMap<&'static str, u64>,
    frames: BTreeMap<Screen, u64>,
    frames_total: u64,
    bytes: u64,
    own_sequences: u64,
    max_frame: Duration,
    max_frame_screen: Option<(Screen, u16, u16)>,
    /// Frames over budget on the wall clock (the machine was busy).
    over_budget_wall: u64,
    /// The most CPU time one frame used (what the budget is asserted on).
    max_cpu: Duration,
    /// Time spent converting and applying (steps 1–3) and drawing (step 4).
    load_time: Duration,
    convert_time: Duration,
    draw_time: Duration,
}

impl Stats {
    fn count(&mut self, s: &Hostile) {
        self.strings += 1;
        for p in &s.pieces {
            *self.pieces.entry(p.kind()).or_default() += 1;
        }
        if s.huge {
            *self.pieces.entry("1 MB").or_default() += 1;
        }
    }

    fn report(&self) -> String {
        let mut out = format!("cases {}\nhostile strings {}\n", self.cases, self.strings);
        for k in PIECE_KINDS {
            out += &format!(
                "  pieces {k}: {}\n",
                self.pieces.get(k).copied().unwrap_or(0)
            );
        }
        out += &format!(
            "objects converted {} (malformed {})\n",
            self.objects, self.malformed
        );
        for (k, n) in &self.log_lines {
            out += &format!("log lines {k}: {n}\n");
        }
        out += &format!(
            "frames {} (over budget on the wall clock {})\nbytes checked {} (own sequences {})\nmax frame {:.2} ms wall clock at {:?}\nmax frame {:.2} ms CPU time\n",
            self.frames_total,
            self.over_budget_wall,
            self.bytes,
            self.own_sequences,
            self.max_frame.as_secs_f64() * 1000.0,
            self.max_frame_screen,
            self.max_cpu.as_secs_f64() * 1000.0
        );
        out += &format!(
            "time converting and applying {:.1} s (converting {:.1} s), drawing and checking {:.1} s\n",
            self.load_time.as_secs_f64(),
            self.convert_time.as_secs_f64(),
            self.draw_time.as_secs_f64()
        );
        for (s, n) in &self.frames {
            out += &format!("  frames {s:?}: {n}\n");
        }
        out
    }
}

fn now() -> Timestamp {
    "2026-03-01T10:05:00Z".parse().unwrap()
}

thread_local! {
    static BASE: Model = fresh_model();
}

/// A model with every watch healthy, as after start-up.
fn base_model() -> Model {
    BASE.with(Model::clone)
}

fn fresh_model() -> Model {
    let mut m = Model::new(SessionInfo::default(), Keymap::default_keymap(), now());
    for k in Kind::ALL {
        m.health.insert(
            k,
            WatchHealth {
                cluster: k.cluster(),
                connected: true,
                last_event: Some(now()),
                last_error: None,
                retry_at: None,
                problem: Default::default(),
            },
        );
    }
    m
}

fn api_version(kind: Kind) -> &'static str {
    match kind {
        Kind::Node | Kind::VrouterPod => "v1",
        Kind::VrouterDaemonSet => "apps/v1",
        _ => "lcm.mirantis.com/v1alpha1",
    }
}

/// Step 1: wire JSON -> DynamicObject -> `convert`.
fn converted(kind: Kind, mut value: serde_json::Value, stats: &mut Stats) -> Object {
    value["apiVersion"] = api_version(kind).into();
    value["kind"] = kind.api_kind().into();
    let t = std::time::Instant::now();
    let wire = serde_json::to_vec(&value).expect("JSON");
    let obj: DynamicObject = serde_json::from_slice(&wire).expect("a DynamicObject");
    let out = convert(kind, &obj);
    stats.convert_time += t.elapsed();
    stats.objects += 1;
    if matches!(out, Object::Malformed(_)) {
        stats.malformed += 1;
    }
    out
}

/// Step 2: one line's wire bytes read as the log follower reads them.
fn follower_line(wire: &[u8], opts: &LogOptions) -> Option<String> {
    let max_bytes = opts.max_line_chars.saturating_mul(4).saturating_add(64);
    let mut stream = wire.to_vec();
    stream.push(b'\n');
    let mut reader = futures::io::BufReader::new(Cursor::new(stream));
    let mut buf = Vec::new();
    futures::executor::block_on(read_line_capped(&mut reader, &mut buf, max_bytes)).ok()?;
    let line = decode(&buf);
    let body = split_timestamp(&line).map_or(line.as_str(), |(_, b)| b);
    Some(sanitize(&cap_chars(body.to_string(), opts.max_line_chars)))
}

fn feed(model: &mut Model, ev: ClusterEvent) {
    update(model, Msg::Cluster(ev));
}

/// Steps 1–3 for one case.
fn load(case: &Case, stats: &mut Stats) -> Model {
    let mut model = base_model();
    for s in case.objects.all() {
        stats.count(s);
    }
    stats.count(&case.pod);
    // A re-list of every kind, then every object changed once.
    let mut listed: BTreeMap<Kind, Vec<Object>> =
        Kind::ALL.iter().map(|&k| (k, Vec::new())).collect();
    for (kind, value) in case.objects.objects(0) {
        let obj = converted(kind, value, stats);
        listed.entry(kind).or_default().push(obj);
    }
    for (kind, objects) in listed {
        feed(&mut model, ClusterEvent::Resynced { kind, objects });
    }
    update(&mut model, Msg::Tick(now() + SignedDuration::from_secs(30)));
    for (kind, value) in case.objects.objects(1) {
        let obj = converted(kind, value, stats);
        feed(&mut model, ClusterEvent::Applied(obj));
    }
    // Log lines, in one batch as the follower sends them.
    let opts = LogOptions::default();
    let pod = sanitize(&format!("lcm-lcm-controller-{}", case.pod.text()));
    let mut lines = Vec::new();
    for spec in &case.lines {
        stats.count(&spec.msg);
        if spec.form != LineForm::Plain {
            stats.count(&spec.extra);
        }
        let form = match spec.form {
            LineForm::Plain => "plain",
            LineForm::JsonEscaped => "JSON, strings \\u-escaped",
            LineForm::JsonRaw => "JSON, strings raw",
        };
        *stats.log_lines.entry(form).or_default() += 1;
        lines.extend(follower_line(&spec.wire(), &opts));
    }
    feed(
        &mut model,
        ClusterEvent::LogStatus {
            message: sanitize(&format!("connected to {pod} (container controller)")),
        },
    );
    feed(&mut model, ClusterEvent::LogLines { pod, lines });
    update(&mut model, Msg::Tick(now() + SignedDuration::from_secs(60)));
    model
}

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::from(KeyCode::Char(c)))
}

/// Puts `model` in the state that shows `screen`.
fn show(model: &mut Model, screen: Screen) {
    model.modals.close_dialog();
    model.modals = Default::default();
    model.views.machines.detail_open = false;
    match screen {
        Screen::View(v) => model.view = v,
        Screen::MachineDetail => {
            model.view = View::Machines;
            model.views.machines.detail_open = true;
        }
        Screen::Help => model.modals.push(Modal::Help { scroll: 0 }),
        Screen::Action(c) => {
            model.view = View::Machines;
            // Keys act on what `update` settled, as in the runtime.
            update(
                model,
                Msg::Resize {
                    width: 200,
                    height: (model.page_rows + 7) as u16,
                },
            );
            update(model, key(c));
        }
    }
}

/// Step 4 for one case.
fn draw_screens(
    case_no: u64,
    model: &mut Model,
    theme: &Theme,
    stats: &mut Stats,
) -> Result<(), TestCaseError> {
    let all = screens();
    model.logs.wrap = case_no.is_multiple_of(2);
    for k in 0..SCREENS_PER_CASE {
        let turn = case_no as usize * SCREENS_PER_CASE + k;
        let screen = all[turn % all.len()];
        let (w, h) = SIZES[(turn / all.len()) % SIZES.len()];
        show(model, screen);
        let (check, took) = screen::draw_and_check(model, theme, w, h);
        if took.wall > stats.max_frame {
            stats.max_frame = took.wall;
            stats.max_frame_screen = Some((screen, w, h));
        }
        if took.wall > FRAME_BUDGET {
            stats.over_budget_wall += 1;
        }
        stats.max_cpu = stats.max_cpu.max(took.cpu);
        stats.frames_total += 1;
        *stats.frames.entry(screen).or_default() += 1;
        stats.bytes += check.bytes as u64;
        stats.own_sequences += check.own_sequences as u64;
        prop_assert!(
            check.violations.is_empty(),
            "{screen:?} at {w}x{h} wrote {:?}\nscreen:\n{}",
            check.violations,
            check.rows.join("\n")
        );
        let remnants = screen::remnants(&check.rows);
        prop_assert!(
            remnants.is_empty(),
            "{screen:?} at {w}x{h}: {remnants:#?}\nscreen:\n{}",
            check.rows.join("\n")
        );
        prop_assert!(
            took.cpu < FRAME_BUDGET,
            "{screen:?} at {w}x{h} took {took:?}"
        );
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_CASES)
}

#[test]
fn hostile_cluster_data_never_reaches_the_terminal() {
    let theme = Theme::default_theme();
    let stats = RefCell::new(Stats::default());
    let started = std::time::Instant::now();
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        // Shrinking a case with 1 MB strings is slow; a failure prints the
        // whole case anyway.
        max_shrink_iters: 64,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&case(), |case| {
        let mut stats = stats.borrow_mut();
        let no = stats.cases;
        stats.cases += 1;
        let t = std::time::Instant::now();
        let mut model = load(&case, &mut stats);
        stats.load_time += t.elapsed();
        let t = std::time::Instant::now();
        let result = draw_screens(no, &mut model, &theme, &mut stats);
        stats.draw_time += t.elapsed();
        result
    });
    let stats = stats.into_inner();
    println!(
        "hostile data: {} in {:.1} s\n{}",
        if result.is_ok() { "passed" } else { "FAILED" },
        started.elapsed().as_secs_f64(),
        stats.report()
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    // Every screen was drawn over the run (with the default case count).
    if stats.cases >= 100 {
        for s in screens() {
            assert!(
                stats.frames.get(&s).copied().unwrap_or(0) > 0,
                "{s:?} never drawn"
            );
        }
        for k in PIECE_KINDS {
            assert!(
                stats.pieces.get(k).copied().unwrap_or(0) > 0,
                "no {k} string generated"
            );
        }
    }
}
