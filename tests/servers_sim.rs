//! The servers on a node against the simulator over TCP (the exec API needs
//! a connection to upgrade): keys go through `update`, commands through the
//! console's effects (the reads through `cluster::openstack`, the actions
//! through the real executor), results come back as messages. What the
//! simulated `keystone-client` pod received, what the screen shows, what
//! the audit log says.

mod cluster_support;

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jiff::SignedDuration;
use kube::api::DynamicObject;
use mosk_console::app::model::{Model, SessionInfo};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::audit::{self, AuditLog, AuditPhase};
use mosk_console::cluster::convert::{convert, is_wanted};
use mosk_console::cluster::writes::WriteMode;
use mosk_console::cluster::writes::executor::{ActionExecutor, ExecutorConfig, Transports};
use mosk_console::config::keymap::Keymap;
use mosk_console::config::theme::Theme;
use mosk_console::console::effects::{ConsoleEffects, to_msgs};
use mosk_console::console::runtime::Effects;
use mosk_console::domain::action::run::RunOutcome;
use mosk_console::domain::objects::{ClusterId, Kind};
use mosk_console::sim::rbac::{Rbac, RbacRule};
use mosk_console::sim::scenario::load::load_scenario;
use mosk_console::sim::world::{SimCluster, SimWorld};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use cluster_support::{Pair, pair_of, serve_app};

struct H {
    world: Arc<SimWorld>,
    model: Model,
    effects: ConsoleEffects,
    rx: UnboundedReceiver<Msg>,
    audit_path: std::path::PathBuf,
    _pair: Pair,
    _dir: tempfile::TempDir,
}

fn deny_exec(verb: &str) -> RbacRule {
    RbacRule {
        verb: verb.into(),
        group: String::new(),
        resource: "pods/exec".into(),
        namespace: Some("openstack".into()),
    }
}

impl H {
    async fn new(mode: WriteMode, deny: Vec<RbacRule>) -> H {
        let world = Arc::new(SimWorld::new(load_scenario("quick").unwrap(), 3));
        let mut rbac = Rbac::allow_all("operator-jane");
        rbac.deny = deny;
        world.set_rbac(SimCluster::Mosk, rbac);
        let side = |which: SimCluster| {
            serve_app(
                world.router(which),
                world.store(which).clone(),
                world.faults(which).clone(),
            )
        };
        let mgmt = side(SimCluster::Mgmt).await;
        let mosk = side(SimCluster::Mosk).await;
        let pair = pair_of(mgmt, mosk);
        let clusters = pair.connect().await;
        let dir = tempfile::tempdir().unwrap();
        let audit_path = dir.path().join("state/audit.jsonl");
        let (tx, rx) = unbounded_channel();
        let session = SessionInfo {
            mgmt_context: "sim-mgmt".into(),
            mosk_context: "sim-mosk".into(),
            namespace: world.spec().namespace,
            cluster_name: world.spec().cluster,
            read_only: mode == WriteMode::ReadOnly,
            dry_run: mode == WriteMode::DryRun,
            ..SessionInfo::default()
        };
        let exec = ActionExecutor::new(ExecutorConfig {
            mgmt: clusters.mgmt.clone(),
            mosk: clusters.mosk.clone(),
            mgmt_context: "sim-mgmt".into(),
            mosk_context: "sim-mosk".into(),
            mgmt_user: Some("kubeconfig-user".into()),
            mosk_user: Some("kubeconfig-user".into()),
            transports: Transports::default(),
            audit: Arc::new(AuditLog::open(Some(&audit_path)).unwrap()),
            mode,
            project: session.namespace.clone(),
            events: to_msgs(tx.clone()),
            replacement_timeout: Duration::from_secs(5),
        });
        let mut effects = ConsoleEffects::with_executor(exec, tx);
        effects.set_mosk_client(clusters.mosk.clone());
        let model = Model::new(session, Keymap::default_keymap(), world.now());
        let mut h = H {
            world,
            model,
            effects,
            rx,
            audit_path,
            _pair: pair,
            _dir: dir,
        };
        h.refresh();
        h.apply(Msg::Resize {
            width: 160,
            height: 30,
        });
        h
    }

    /// What the watchers would show (as the actions harness does).
    fn refresh(&mut self) {
        self.model.now = self.world.now();
        for kind in Kind::ALL {
            let store = match kind.cluster() {
                ClusterId::Mgmt => self.world.mgmt(),
                ClusterId::Mosk => self.world.mosk(),
            };
            let objects = store
                .list(kind.plural(), None)
                .into_iter()
                .map(|v| serde_json::from_value::<DynamicObject>(v).unwrap())
                .filter(|obj| is_wanted(kind, obj, None))
                .map(|obj| convert(kind, &obj))
                .collect();
            let now = self.model.now;
            self.model
                .history
                .relist(&mut self.model.snapshot, kind, objects, now);
        }
    }

    fn apply(&mut self, msg: Msg) {
        for cmd in update(&mut self.model, msg) {
            self.effects.run(cmd);
        }
    }

    fn key(&mut self, code: KeyCode) {
        let frame = mosk_console::ui::report_at(&self.model, &Theme::default_theme(), 160, 30);
        self.apply(Msg::Drawn(frame));
        self.apply(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    fn press(&mut self, c: char) {
        self.key(KeyCode::Char(c));
    }

    async fn next_msg(&mut self) -> Msg {
        let msg = tokio::time::timeout(Duration::from_secs(60), self.rx.recv())
            .await
            .expect("a message within the safety timeout")
            .expect("channel open");
        self.apply(msg.clone());
        msg
    }

    /// Opens the servers panel (`o`) on the Machines row of the compute in
    /// manual mode and waits for its first read; returns the node.
    async fn open_servers_of_manual_node(&mut self) -> String {
        let node = manual_compute(&self.world);
        self.cursor_on(&node);
        self.press('o');
        self.until_read().await;
        node
    }

    /// Feeds messages until a read of the servers comes back.
    async fn until_read(&mut self) {
        while !matches!(self.next_msg().await, Msg::ServersRead { .. }) {}
    }

    /// The clock moves by `secs` (the world too), one tick.
    fn tick(&mut self, secs: i64) {
        self.world.step(SignedDuration::from_secs(secs));
        self.refresh();
        let now = self.model.now;
        self.apply(Msg::Tick(now));
    }

    /// Answers the permission questions the tick asked.
    async fn settle_access(&mut self) {
        while !self.model.actions.access.pending.is_empty() {
            self.next_msg().await;
        }
    }

    /// The Machines view with the cursor on `node`'s row.
    fn cursor_on(&mut self, node: &str) {
        self.press('2');
        for _ in 0..20 {
            if mosk_console::app::actions::node_under_cursor(&self.model).as_deref() == Ok(node) {
                return;
            }
            self.press('j');
        }
        panic!("no Machines row for {node}");
    }

    fn screen(&self) -> String {
        let mut model = self.model.clone();
        update(
            &mut model,
            Msg::Resize {
                width: 160,
                height: 30,
            },
        );
        let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 30)).unwrap();
        t.draw(|f| mosk_console::ui::draw(f, &model, &Theme::default_theme()))
            .unwrap();
        let buf = t.backend().buffer().clone();
        let mut s = String::new();
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                s.push_str(buf[(x, y)].symbol());
            }
            s.push('\n');
        }
        s
    }

    fn received(&self) -> Vec<String> {
        self.world
            .exec(SimCluster::Mosk)
            .received()
            .iter()
            .map(|r| r.command.join(" "))
            .collect()
    }

    async fn run_to_end(&mut self) -> RunOutcome {
        loop {
            if let Some(o) = self
                .model
                .actions
                .running
                .as_ref()
                .and_then(|r| r.outcome.clone())
            {
                return o;
            }
            self.next_msg().await;
        }
    }

    /// Confirms the open dialog once a frame has drawn it whole.
    fn confirm(&mut self) {
        self.press('y');
    }
}

/// The manual compute of the `quick` scenario and its servers.
fn manual_compute(w: &SimWorld) -> String {
    w.machines()
        .into_iter()
        .filter(|m| !w.servers_on(&m.node).is_empty())
        .nth(1)
        .expect("the second compute")
        .node
}

#[tokio::test]
async fn servers_view_reads_the_node_through_the_exec_api_and_shows_names_projects_and_what_the_controller_will_do()
 {
    let mut h = H::new(WriteMode::Live, Vec::new()).await;
    let node = h.open_servers_of_manual_node().await;
    let received = h.received();
    assert_eq!(
        received[0],
        format!("openstack server list --all-projects --host {node} --long -f json")
    );
    let on = h.world.servers_on(&node);
    for id in &on {
        assert!(received.contains(&format!("openstack server show {id} -f json")));
    }
    assert_eq!(received.last().unwrap(), "openstack project list -f json");
    let screen = h.screen();
    for s in h.world.nova_servers().iter().filter(|s| on.contains(&s.id)) {
        assert!(screen.contains(&s.name), "{screen}");
    }
    insta::assert_snapshot!("servers_view_manual_node", screen);

    // Refreshed on the clock while open: not before 10 s, then again.
    let before = h.received().len();
    h.tick(5);
    assert_eq!(h.received().len(), before, "no read before 10 s");
    h.tick(5);
    h.until_read().await;
    assert!(h.received().len() > before, "read again after 10 s");
    // Closed: no more reads.
    h.key(KeyCode::Esc);
    let after = h.received().len();
    h.tick(30);
    assert_eq!(h.received().len(), after);
}

/// Runs `key` on the server under the cursor through the confirmation.
async fn act_on_first(h: &mut H, key: char) -> RunOutcome {
    h.tick(1);
    h.settle_access().await;
    h.press(key);
    assert!(
        h.model.modals.dialog().is_some(),
        "a confirmation: {:?}",
        h.model.notice()
    );
    h.confirm();
    h.run_to_end().await
}

#[tokio::test]
async fn a_live_migration_through_keys_runs_to_the_end_and_the_server_leaves_the_node() {
    let mut h = H::new(WriteMode::Live, Vec::new()).await;
    let node = h.open_servers_of_manual_node().await;
    let first = h.model.servers.nodes[&node].servers()[0].clone();
    let outcome = act_on_first(&mut h, 'M').await;
    assert!(
        matches!(outcome, RunOutcome::Completed { dry_run: false }),
        "{outcome:?}"
    );
    let cmd = format!("openstack server migrate --live-migration {}", first.id);
    let received = h.received();
    let sent = received.iter().position(|c| *c == cmd).expect("sent");
    assert_eq!(
        received[sent - 1],
        format!("openstack server show {} -f json", first.id),
        "the server is read again just before the command"
    );
    let audit = audit::read(&h.audit_path).unwrap();
    assert!(
        audit
            .iter()
            .any(|r| r.phase == AuditPhase::Intent && r.change_text.contains(&cmd))
    );
    h.key(KeyCode::Enter); // closes the progress
    // Progress while the migration runs, then off the node.
    h.tick(10);
    h.until_read().await;
    assert!(
        h.screen().contains("live migration running"),
        "{}",
        h.screen()
    );
    for _ in 0..6 {
        h.tick(10);
        h.until_read().await;
    }
    assert!(!h.world.servers_on(&node).contains(&first.id));
    let screen = h.screen();
    assert!(
        screen.contains(&format!(
            "{}: off the node after the live migration asked",
            first.name
        )),
        "{screen}"
    );
}

#[tokio::test]
async fn a_live_migration_nova_refuses_after_accepting_is_shown_failed_with_the_server_still_on_the_node()
 {
    let mut h = H::new(WriteMode::Live, Vec::new()).await;
    // The third compute has a server on LVM ephemeral storage.
    let node = h
        .world
        .machines()
        .into_iter()
        .filter(|m| !h.world.servers_on(&m.node).is_empty())
        .nth(2)
        .unwrap()
        .node;
    let bad = h
        .world
        .nova_servers()
        .into_iter()
        .find(|s| s.problem.is_some())
        .unwrap();
    assert_eq!(bad.host.as_deref(), Some(node.as_str()));
    h.cursor_on(&node);
    h.press('o');
    h.until_read().await;
    let at = h.model.servers.nodes[&node]
        .servers()
        .iter()
        .position(|s| s.id == bad.id)
        .unwrap();
    for _ in 0..at {
        h.press('j');
    }
    let outcome = act_on_first(&mut h, 'M').await;
    // The command exits 0: Nova accepted it.
    assert!(
        matches!(outcome, RunOutcome::Completed { .. }),
        "{outcome:?}"
    );
    h.key(KeyCode::Enter);
    for _ in 0..2 {
        h.tick(10);
        h.until_read().await;
    }
    let screen = h.screen();
    assert!(
        screen.contains("live migration failed: still here, ACTIVE"),
        "{screen}"
    );
    assert!(h.world.servers_on(&node).contains(&bad.id));
}

#[tokio::test]
async fn dry_run_shows_the_command_and_sends_nothing_to_the_pod() {
    let mut h = H::new(WriteMode::DryRun, Vec::new()).await;
    h.open_servers_of_manual_node().await;
    let before = h.received().len();
    let outcome = act_on_first(&mut h, 'T').await;
    assert!(
        matches!(outcome, RunOutcome::Completed { dry_run: true }),
        "{outcome:?}"
    );
    assert_eq!(
        h.received().len(),
        before,
        "nothing exec'd: {:?}",
        h.received()
    );
    let audit = audit::read(&h.audit_path).unwrap();
    let result = audit
        .iter()
        .find(|r| r.phase == AuditPhase::Result)
        .unwrap();
    assert!(result.dry_run);
    assert!(
        result
            .message
            .as_deref()
            .unwrap_or_default()
            .contains("dry run: would run `openstack server stop"),
        "{result:?}"
    );
}

#[tokio::test]
async fn read_only_reads_the_servers_and_offers_no_action() {
    let mut h = H::new(WriteMode::ReadOnly, Vec::new()).await;
    let node = h.open_servers_of_manual_node().await;
    assert!(!h.model.servers.nodes[&node].servers().is_empty());
    let before = h.received().len();
    h.press('M');
    assert!(h.model.modals.dialog().is_none());
    assert!(h.model.notice().unwrap().text.contains("read-only"));
    assert_eq!(h.received().len(), before);
}

#[tokio::test]
async fn a_refused_exec_is_named_a_refusal_and_a_denied_get_on_pods_exec_stops_actions() {
    let mut h = H::new(WriteMode::Live, vec![deny_exec("get")]).await;
    h.open_servers_of_manual_node().await;
    let screen = h.screen();
    assert!(
        screen.contains("REFUSED: the API server refused the exec"),
        "{screen}"
    );
    assert!(h.received().is_empty());
    h.tick(1);
    h.settle_access().await;
    h.press('M');
    assert!(h.model.modals.dialog().is_none(), "no plan");
    // The review asks for get as well as create.
    let a = mosk_console::app::actions::availability(
        &h.model,
        mosk_console::domain::action::ActionId::LiveMigrateServers,
    );
    assert!(
        format!("{a:?}").contains("get pods/exec in openstack"),
        "{a:?}"
    );
}

#[tokio::test]
async fn the_acknowledge_dialog_lists_the_servers_by_name_and_warns_about_an_active_one() {
    let mut h = H::new(WriteMode::Live, Vec::new()).await;
    let node = manual_compute(&h.world);
    let waits = |w: &SimWorld| {
        w.mosk()
            .list("nodeworkloadlocks", None)
            .into_iter()
            .any(|l| {
                l.pointer("/spec/nodeName").and_then(|v| v.as_str()) == Some(node.as_str())
                    && l.pointer("/status/errorMessage")
                        .and_then(|v| v.as_str())
                        .is_some_and(|m| m.contains("Some servers are still present"))
            })
    };
    let mut steps = 0;
    while !waits(&h.world) {
        steps += 1;
        assert!(steps < 2000, "the manual node never waited");
        h.tick(10);
    }
    h.tick(1);
    h.settle_access().await;
    h.cursor_on(&node);
    h.press('a');
    assert!(h.model.modals.dialog().is_some(), "{:?}", h.model.notice());
    assert!(h.screen().contains("unknown, not read"), "{}", h.screen());
    // o reads them from the dialog; Esc goes back to it.
    h.press('o');
    h.until_read().await;
    h.key(KeyCode::Esc);
    assert!(h.model.modals.dialog().is_some());
    let screen = h.screen();
    for s in h.model.servers.nodes[&node].servers() {
        assert!(screen.contains(&format!("{} ACTIVE", s.name)), "{screen}");
    }
    assert!(screen.contains("! a server is still ACTIVE on"), "{screen}");
    // The node's uid is the simulator's own, new each run.
    let screen = regex::Regex::new("uid [0-9a-f-]{36}")
        .unwrap()
        .replace_all(&screen, "uid <uid>                           ");
    insta::assert_snapshot!("acknowledge_dialog_with_servers", screen);
}

#[tokio::test]
async fn a_server_changed_since_the_panel_read_it_gets_no_command() {
    let mut h = H::new(WriteMode::Live, Vec::new()).await;
    let node = h.open_servers_of_manual_node().await;
    let first = h.model.servers.nodes[&node].servers()[0].clone();
    // Someone else starts its live migration after the panel read it.
    let other = h._pair.connect().await;
    let migrate = mosk_console::app::servers::command(
        mosk_console::domain::action::ActionId::LiveMigrateServers,
        &first.id,
    );
    mosk_console::cluster::openstack::run_openstack(&other.mosk, &migrate)
        .await
        .unwrap();
    let outcome = act_on_first(&mut h, 'T').await;
    let RunOutcome::Failed { message } = outcome else {
        panic!("{outcome:?}");
    };
    assert!(
        message.contains(&format!(
            "not sent: server {} is now MIGRATING (migrating) on {node} (the panel showed ACTIVE on {node})",
            first.name
        )),
        "{message}"
    );
    let stop = format!("openstack server stop {}", first.id);
    assert!(!h.received().contains(&stop));
    let audit = audit::read(&h.audit_path).unwrap();
    assert!(audit.iter().any(|r| {
        r.phase == AuditPhase::Result
            && r.message
                .as_deref()
                .unwrap_or_default()
                .contains("not sent: server")
    }));
}
