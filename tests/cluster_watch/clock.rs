//! One clock: API servers whose clock runs 5 minutes ahead of this machine's
//! (their `Date` headers say so, and they stamp objects on that clock). The
//! console measures ages on the servers' clock and marks the offset.

use std::sync::Arc;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use jiff::{SignedDuration, Timestamp};
use mosk_console::app::model::{Model, SessionInfo, View};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::cluster::{ClusterEvent, spawn_watchers};
use mosk_console::config::keymap::Keymap;
use mosk_console::config::theme::Theme;
use mosk_console::domain::objects::{ClusterId, Kind};
use mosk_console::sim::clock::Clock;
use mosk_console::sim::faults::Faults;
use mosk_console::sim::registry::Registry;
use mosk_console::sim::server::{ServerOptions, router};
use mosk_console::sim::store::Store;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::cluster_support::*;

const AHEAD: SignedDuration = SignedDuration::from_mins(5);

/// Stamps every answer with a `Date` five minutes ahead of this machine's clock.
async fn date_ahead(req: Request, next: Next) -> Response {
    let mut resp = next.run(req).await;
    let date = jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&(Timestamp::now() + AHEAD))
        .unwrap();
    resp.headers_mut()
        .insert(http::header::DATE, date.parse().unwrap());
    resp
}

/// A simulated cluster on loopback whose clock is `AHEAD` of this machine's,
/// less `age`: the objects created now are `age` old on the server's clock.
async fn ahead(registry: Registry, age: SignedDuration) -> Sim {
    let clock = Clock::new(Timestamp::now() + AHEAD - age);
    let store = Store::new(registry, clock);
    let faults = Arc::new(Faults::new());
    let app = router(
        store.clone(),
        ServerOptions {
            faults: faults.clone(),
            ..ServerOptions::default()
        },
    )
    .layer(axum::middleware::from_fn(date_ahead));
    serve_app(app, store, faults).await
}

/// How far a reported offset may be from `AHEAD` when every answer it was
/// estimated from was asked and received after `began`. Each answer puts the
/// offset in `[date - received, date + 1 s - sent]` (the `Date` header has
/// whole seconds), an interval holding the true offset and no wider than
/// 1 s plus the time since `began`; the estimate is the middle of such
/// intervals' intersection, so it is off by at most half that width. Taken
/// from the clock rather than fixed, because a TCP connect and a list on a
/// loaded two-core machine can take seconds.
fn tolerance(began: Timestamp) -> SignedDuration {
    (SignedDuration::from_secs(1) + Timestamp::now().duration_since(began)) / 2
}

fn screen(model: &Model) -> String {
    let mut model = model.clone();
    // `update` settles the table of the view the test switched to.
    update(
        &mut model,
        Msg::Resize {
            width: 160,
            height: 30,
        },
    );
    let mut t = Terminal::new(TestBackend::new(160, 30)).unwrap();
    let theme = Theme::default_theme();
    t.draw(|f| mosk_console::ui::draw(f, &model, &theme))
        .unwrap();
    let buf = t.backend().buffer().clone();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn ages_are_measured_on_the_api_servers_clock_and_the_offset_is_shown() {
    let age = SignedDuration::from_mins(1);
    let mgmt = ahead(Registry::mgmt(), age).await;
    let mosk = ahead(Registry::mosk(), age).await;
    mosk.store
        .create(
            "nodemaintenancerequests",
            json!({"metadata": {"name": "kaas-node-1"}, "spec": {"nodeName": "kaas-node-1", "scope": "os"}}),
        )
        .unwrap();
    let pair = pair_of(mgmt, mosk);
    let began = Timestamp::now();
    let clusters = pair.connect().await;
    // The start-up probe already sampled both clocks.
    let measured = clusters.clock.offset(ClusterId::Mgmt);
    let within = tolerance(began);
    assert!(
        (measured - AHEAD).abs() <= within,
        "{measured:?}, allowed {within:?} from {AHEAD:?}"
    );

    let (tx, rx) = mosk_console::cluster::channel::channel();
    let cancel = CancellationToken::new();
    let _tasks = spawn_watchers(&clusters, &fast_watch(), tx, cancel.clone());
    let mut events = Events::new(rx);
    events.synced(&[Kind::NodeMaintenanceRequest]).await;
    let offset = events
        .log
        .iter()
        .find_map(|e| match e {
            ClusterEvent::ClockOffset {
                cluster: ClusterId::Mgmt,
                offset,
            } => Some(*offset),
            _ => None,
        })
        .expect("the management clock offset is reported");
    let within = tolerance(began);
    assert!(
        (offset - AHEAD).abs() <= within,
        "{offset:?}, allowed {within:?} from {AHEAD:?}"
    );

    // The console's model, fed what the cluster layer sent, on this machine's clock.
    let mut model = Model::new(
        SessionInfo::default(),
        Keymap::default_keymap(),
        Timestamp::now(),
    );
    for ev in events.log.clone() {
        update(&mut model, Msg::Cluster(ev));
    }
    update(&mut model, Msg::Tick(Timestamp::now()));
    model.view = View::Requests;
    let text = screen(&model);
    cancel.cancel();

    // The request was created a minute ago on the server's clock (and four
    // minutes in this machine's future): its age reads one minute.
    let row = text
        .lines()
        .find(|l| l.contains("kaas-node-1") && l.contains("node"))
        .unwrap_or_else(|| panic!("no request row:\n{text}"));
    assert!(
        ["59s", "1m00s", "1m01s"].iter().any(|a| row.contains(a)),
        "{row}"
    );
    let bar = text
        .lines()
        .find(|l| l.contains("clock: "))
        .unwrap_or_else(|| panic!("no clock mark:\n{text}"));
    assert!(
        ["+4m59s ahead", "+5m00s ahead", "+5m01s ahead"]
            .iter()
            .any(|a| bar.contains(&format!("mgmt API {a}"))),
        "{bar}"
    );
}
