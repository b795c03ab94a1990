//! Rendering cost per frame: `ui::draw` into a ratatui `TestBackend` with
//! the `large` scenario (2,000 machines, 26 simulated minutes in) loaded and
//! 20,000 lines in the log buffer, at 200x60 and 80x24.
//!
//! `cargo bench --bench render -- --warm-up-time 1 --measurement-time 3`

mod common;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jiff::SignedDuration;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use mosk_console::app::logs::LOG_CAPACITY;
use mosk_console::app::model::{Model, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::config::theme::Theme;

const SIZES: [(u16, u16); 2] = [(200, 60), (80, 24)];

/// A named model state to draw.
struct Case {
    name: &'static str,
    model: Model,
}

fn cases(base: &Model) -> Vec<Case> {
    let with = |view: View, f: &dyn Fn(&mut Model)| {
        let mut m = base.clone();
        m.view = view;
        f(&mut m);
        // Settles what is derived for the view, as `update` does.
        let height = (m.page_rows + 7) as u16;
        update(&mut m, Msg::Resize { width: 200, height });
        m
    };
    // The machine updated last: the log hardly mentions it yet, so a subject
    // filter on it looks at (nearly) every buffered line.
    let last = base
        .derived
        .rows
        .last()
        .map(|r| r.machine.name.clone())
        .unwrap_or_default();
    vec![
        Case {
            name: "overview",
            model: with(View::Overview, &|_| {}),
        },
        Case {
            name: "machines",
            model: with(View::Machines, &|_| {}),
        },
        Case {
            name: "machines_detail",
            model: with(View::Machines, &|m| m.views.machines.detail_open = true),
        },
        Case {
            name: "machines_filtered",
            model: with(View::Machines, &|m| {
                m.cursor_mut(View::Machines).filter = "compute".into()
            }),
        },
        Case {
            name: "events",
            model: with(View::Events, &|_| {}),
        },
        Case {
            name: "logs_follow",
            model: with(View::Logs, &|_| {}),
        },
        Case {
            name: "logs_search",
            model: with(View::Logs, &|m| m.logs.set_search(Some("drain".into()))),
        },
        Case {
            name: "logs_subject_rare",
            model: with(View::Logs, &|m| m.logs.set_subject(vec![last.clone()])),
        },
    ]
}

fn benches(c: &mut Criterion) {
    let world = common::large_world_mid_update();
    let mut base = common::loaded_model(&world);
    base.logs
        .push("lcm-controller", &common::log_lines(&world, LOG_CAPACITY));
    eprintln!(
        "render: {} machine rows, {} log lines",
        base.derived.rows.len(),
        base.logs.lines.len()
    );
    let theme = Theme::default_theme();
    let cases = cases(&base);

    let mut g = c.benchmark_group("draw");
    for (w, h) in SIZES {
        for case in &cases {
            let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("test backend");
            let mut model = case.model.clone();
            model.page_rows = (h as usize).saturating_sub(7).max(1);
            g.bench_function(BenchmarkId::new(case.name, format!("{w}x{h}")), |b| {
                b.iter(|| {
                    terminal
                        .draw(|f| mosk_console::ui::draw(f, &model, &theme))
                        .expect("draw");
                })
            });
        }
    }
    g.finish();

    // What the runtime does every second when nothing else happens: the tick
    // moves the clock, so derived data is recomputed, then a frame is drawn
    // (also on the Logs view, which shows no age: what a tick redraw costs
    // on a screen it does not change).
    let mut g = c.benchmark_group("tick_frame");
    for (w, h) in SIZES {
        for name in ["overview", "machines", "logs_follow"] {
            let case = cases.iter().find(|c| c.name == name).expect("case");
            let mut model = case.model.clone();
            let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("test backend");
            let mut now = model.now;
            g.bench_function(BenchmarkId::new(name, format!("{w}x{h}")), |b| {
                b.iter(|| {
                    now += SignedDuration::from_secs(1);
                    update(&mut model, Msg::Tick(now));
                    terminal
                        .draw(|f| mosk_console::ui::draw(f, &model, &theme))
                        .expect("draw");
                })
            });
        }
    }
    g.finish();

    // A key press and the frame it causes, at 200x50 (<= 1 ms in
    // any view): `j` then `k` in each table view, two presses per iteration.
    let mut g = c.benchmark_group("key_frame");
    let down = Msg::Key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE));
    let up = Msg::Key(KeyEvent::new(KeyCode::Char('k'), KeyModifiers::NONE));
    for view in View::ALL {
        let mut model = base.clone();
        model.view = view;
        update(
            &mut model,
            Msg::Resize {
                width: 200,
                height: 50,
            },
        );
        let mut terminal = Terminal::new(TestBackend::new(200, 50)).expect("test backend");
        g.bench_function(BenchmarkId::new(view.command_name(), "200x50"), |b| {
            b.iter(|| {
                for key in [&down, &up] {
                    update(&mut model, key.clone());
                    terminal
                        .draw(|f| mosk_console::ui::draw(f, &model, &theme))
                        .expect("draw");
                }
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = render;
    config = common::quick_criterion().sample_size(10);
    targets = benches
}
criterion_main!(render);
