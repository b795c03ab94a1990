//! A console model wired to the simulated clusters through the real
//! executor: keys go through `update`, commands through the console's
//! effects to `ActionExecutor` (kube-rs over the sim's HTTP router,
//! in-process), results come back as messages. Every request the MOSK API server receives is recorded.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jiff::SignedDuration;
use kube::Client;
use kube::api::DynamicObject;
use mosk_console::app::model::{Model, SessionInfo};
use mosk_console::app::msg::Msg;
use mosk_console::app::update::update;
use mosk_console::audit::{self, AuditLog, AuditPhase, AuditRecord};
use mosk_console::cluster::convert::{convert, is_wanted};
use mosk_console::cluster::writes::WriteMode;
use mosk_console::cluster::writes::executor::{ActionExecutor, ExecutorConfig, Transports};
use mosk_console::config::keymap::Keymap;
use mosk_console::console::effects::{ConsoleEffects, to_msgs};
use mosk_console::console::runtime::Effects;
use mosk_console::domain::action::run::RunOutcome;
use mosk_console::domain::objects::{ClusterId, Kind};
use mosk_console::sim::rbac::{Rbac, RbacRule};
use mosk_console::sim::scenario::load::{load_scenario, parse_scenario};
use mosk_console::sim::world::{SimCluster, SimWorld};
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

pub const MODE: &str = "openstack.lcm.mirantis.com/instance_migration_mode";
pub const ATTEMPTS: &str = "openstack.lcm.mirantis.com/instance_migration_attempts";

/// A request the MOSK API server received.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub query: String,
    /// Intent records in the audit file when the request arrived.
    pub intents_on_disk: usize,
    /// The body of a write, as text (empty for GET).
    pub body: String,
    /// Its `Content-Type`.
    pub content_type: String,
}

impl Seen {
    pub fn is_write(&self) -> bool {
        self.method != "GET"
    }
}

pub struct Harness {
    pub world: SimWorld,
    /// The world whose MOSK cluster is served, when it is not `world`'s
    /// ([`Options::mosk_seed`]).
    pub mosk_world: Option<SimWorld>,
    pub model: Model,
    pub exec: ConsoleEffects,
    pub rx: UnboundedReceiver<Msg>,
    /// The same channel's sender (keys for a test that runs the runtime loop).
    pub tx: UnboundedSender<Msg>,
    /// Notified when a change reaches the server (with `answer_delay`).
    pub arrived: Arc<tokio::sync::Notify>,
    pub requests: Arc<Mutex<Vec<Seen>>>,
    pub audit_path: PathBuf,
    _dir: tempfile::TempDir,
    /// The directory of an earlier console's audit log ([`Harness::restart`]).
    _earlier_dir: Option<tempfile::TempDir>,
}

/// How a harness is built.
pub struct Options {
    pub mode: WriteMode,
    /// Deny rules of the MOSK API server (everything else allowed).
    pub deny: Vec<RbacRule>,
    /// Deny rules that apply to the request but not to SelfSubjectAccessReview
    /// answers (a server whose review and enforcement disagree).
    pub deny_at_execution_only: Vec<RbacRule>,
    pub replacement_timeout: Duration,
    /// Whether the server answers SelfSubjectReview (Kubernetes 1.28+).
    pub self_subject_review: bool,
    /// How the MOSK API server answers SelfSubjectAccessReviews, when not as the sim does.
    pub review_fault: Option<ReviewFault>,
    /// The MOSK API server applies each change at once but answers it only
    /// after this long (a slow or stuck answer on the wire).
    pub answer_delay: Option<Duration>,
    /// The audit log opens (a regular file of one's own), then its
    /// descriptor becomes a pipe: no record can be written (`fsync` of a
    /// pipe fails), as when the disk under the log fails after the console
    /// started.
    pub audit_unwritable: bool,
    /// Called with the node's name after the MOSK API server answered a GET
    /// of one node, before the client sees the answer (someone else writes
    /// between the console's read and its write).
    pub after_node_get: Option<NodeGetHook>,
    /// How the connections are protected (badges, audit records).
    pub transports: Transports,
    /// The MOSK side is the same scenario played with this seed: another
    /// cluster's nodes (a kubeconfig pairing one cluster's management with
    /// another's MOSK context).
    pub mosk_seed: Option<u64>,
    /// The audit log of an earlier console (a restart); else a new one.
    pub audit_path: Option<PathBuf>,
}

/// See [`Options::after_node_get`]: called with the node's name.
pub type NodeGetHook = Arc<dyn Fn(String) -> futures::future::BoxFuture<'static, ()> + Send + Sync>;

/// A SelfSubjectAccessReview the server cannot answer, or answers oddly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewFault {
    /// 201 with the review echoed back, but no `status`.
    NoStatus,
    /// An error status (404 when the API is absent, 5xx).
    Status(u16),
    /// No answer at all (nor to SelfSubjectReview).
    Hang,
    /// A real denial without a reason: `status: {allowed: false}`.
    DeniedWithoutReason,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: WriteMode::Live,
            deny: Vec::new(),
            deny_at_execution_only: Vec::new(),
            replacement_timeout: Duration::from_secs(5),
            self_subject_review: true,
            review_fault: None,
            answer_delay: None,
            audit_unwritable: false,
            after_node_get: None,
            transports: Transports::default(),
            mosk_seed: None,
            audit_path: None,
        }
    }
}

/// The disk under the audit log fails after the log was opened (a regular
/// file of one's own, as the log requires): the log's descriptor is made
/// the write end of a pipe, so every record's `fsync` fails. A reader
/// drains the pipe until the console's end closes.
fn break_audit_file(path: &std::path::Path) {
    use std::os::fd::AsRawFd;
    let fd = std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd lists this process's descriptors")
        .filter_map(|e| e.ok())
        .find(|e| std::fs::read_link(e.path()).ok().as_deref() == Some(path))
        .and_then(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .expect("the audit log's descriptor");
    let (reader, writer) = std::io::pipe().expect("a pipe");
    // SAFETY: both descriptors are open; dup2 replaces the audit log's
    // descriptor in place, as a failing disk would leave it unusable.
    let r = unsafe { libc::dup2(writer.as_raw_fd(), fd) };
    assert!(r >= 0, "dup2 failed");
    std::thread::spawn(move || {
        use std::io::Read;
        let mut reader = reader;
        let mut sink = Vec::new();
        let _ = reader.read_to_end(&mut sink);
    });
    drop(writer);
}

pub fn deny(verb: &str, resource: &str, namespace: Option<&str>) -> RbacRule {
    RbacRule {
        verb: verb.into(),
        group: String::new(),
        resource: resource.into(),
        namespace: namespace.map(str::to_string),
    }
}

/// Short phase durations so scenarios finish in few steps.
pub const SHORT_DURATIONS: &str = include_str!("../data/short_durations.toml");

/// Feeds a console's cluster events to `model` until every list is in (on
/// paused time: the timeout is a safety net, never waited for).
pub async fn until_listed(
    model: &mut Model,
    events: &mut mosk_console::cluster::channel::EventReceiver,
) {
    while mosk_console::app::freshness::loading(model).is_some() {
        let ev = tokio::time::timeout(Duration::from_secs(3600), events.recv())
            .await
            .expect("the watches list within the safety timeout")
            .expect("the cluster layer runs");
        update(model, Msg::Cluster(ev));
    }
}

/// The screen `model` draws at `w` x `h` in the default theme, one line
/// of cell symbols per row.
pub fn screen_of(model: &Model, w: u16, h: u16) -> String {
    let theme = mosk_console::config::theme::Theme::default_theme();
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    t.draw(|f| mosk_console::ui::draw(f, model, &theme))
        .unwrap();
    let buf = t.backend().buffer();
    let mut s = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

pub fn quick_world() -> SimWorld {
    SimWorld::new(load_scenario("quick").unwrap(), 7)
}

pub fn custom_world(body: &str) -> SimWorld {
    let text = format!("name = \"t\"\n{body}\n{SHORT_DURATIONS}");
    SimWorld::new(parse_scenario(&text, "test.toml").unwrap(), 42)
}

fn recorded(router: axum::Router, log: Arc<Mutex<Vec<Seen>>>, audit: PathBuf) -> axum::Router {
    router.layer(axum::middleware::from_fn(
        move |req: axum::extract::Request, next: axum::middleware::Next| {
            let log = log.clone();
            // Only a regular file is read (a test may put a pipe there,
            // which a read would wait on forever).
            let intents_on_disk = std::fs::metadata(&audit)
                .is_ok_and(|m| m.is_file())
                .then(|| audit::read(&audit).ok())
                .flatten()
                .map(|recs| {
                    recs.iter()
                        .filter(|r| r.phase == AuditPhase::Intent)
                        .count()
                })
                .unwrap_or(0);
            async move {
                let (parts, body) = req.into_parts();
                let bytes = axum::body::to_bytes(body, 1 << 20)
                    .await
                    .unwrap_or_default();
                let content_type = parts
                    .headers
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_string();
                log.lock().unwrap().push(Seen {
                    method: parts.method.to_string(),
                    path: parts.uri.path().to_string(),
                    query: parts.uri.query().unwrap_or_default().to_string(),
                    intents_on_disk,
                    body: String::from_utf8_lossy(&bytes).into_owned(),
                    content_type,
                });
                let req = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
                next.run(req).await
            }
        },
    ))
}

/// A server without the SelfSubjectReview API (Kubernetes before 1.28).
pub fn without_self_subject_review(router: axum::Router) -> axum::Router {
    router.layer(axum::middleware::from_fn(
        |req: axum::extract::Request, next: axum::middleware::Next| async move {
            if req.uri().path().ends_with("/selfsubjectreviews") {
                return axum::response::IntoResponse::into_response((
                    axum::http::StatusCode::NOT_FOUND,
                    axum::Json(serde_json::json!({"kind": "Status", "apiVersion": "v1",
                        "status": "Failure", "reason": "NotFound", "code": 404,
                        "message": "the server could not find the requested resource"})),
                ));
            }
            next.run(req).await
        },
    ))
}

/// Answers SelfSubjectAccessReviews as `fault` says.
fn with_review_fault(router: axum::Router, fault: ReviewFault) -> axum::Router {
    router.layer(axum::middleware::from_fn(
        move |req: axum::extract::Request, next: axum::middleware::Next| async move {
            use axum::http::StatusCode;
            use axum::response::IntoResponse;
            let path = req.uri().path();
            if fault == ReviewFault::Hang && path.ends_with("/selfsubjectreviews") {
                tokio::time::sleep(Duration::from_secs(24 * 3600)).await;
            }
            if !req.uri().path().ends_with("/selfsubjectaccessreviews") {
                return next.run(req).await;
            }
            let review = |status: Option<Value>| {
                let mut v = serde_json::json!({"kind": "SelfSubjectAccessReview",
                    "apiVersion": "authorization.k8s.io/v1", "metadata": {},
                    "spec": {"resourceAttributes": {"verb": "patch", "resource": "nodes"}}});
                if let Some(s) = status {
                    v["status"] = s;
                }
                (StatusCode::CREATED, axum::Json(v)).into_response()
            };
            match fault {
                ReviewFault::NoStatus => review(None),
                ReviewFault::DeniedWithoutReason => {
                    review(Some(serde_json::json!({"allowed": false})))
                }
                ReviewFault::Status(code) => (
                    StatusCode::from_u16(code).unwrap(),
                    axum::Json(serde_json::json!({"kind": "Status", "apiVersion": "v1",
                        "status": "Failure", "reason": "InternalError", "code": code,
                        "message": "the access review failed"})),
                )
                    .into_response(),
                ReviewFault::Hang => {
                    tokio::time::sleep(Duration::from_secs(24 * 3600)).await;
                    next.run(req).await
                }
            }
        },
    ))
}

/// Runs `hook` after a GET of one node is answered.
fn with_node_get_hook(router: axum::Router, hook: NodeGetHook) -> axum::Router {
    router.layer(axum::middleware::from_fn(
        move |req: axum::extract::Request, next: axum::middleware::Next| {
            let hook = hook.clone();
            async move {
                let node = (req.method() == "GET")
                    .then(|| req.uri().path().strip_prefix("/api/v1/nodes/"))
                    .flatten()
                    .map(str::to_string);
                let resp = next.run(req).await;
                if let Some(n) = node {
                    hook(n).await;
                }
                resp
            }
        },
    ))
}

/// Applies changes at once, answers them `delay` later; `arrived` is
/// notified when a change reaches the server.
fn with_answer_delay(
    router: axum::Router,
    delay: Duration,
    arrived: Arc<tokio::sync::Notify>,
) -> axum::Router {
    router.layer(axum::middleware::from_fn(
        move |req: axum::extract::Request, next: axum::middleware::Next| {
            let arrived = arrived.clone();
            async move {
                let change = req.method() != "GET" && !req.uri().path().contains("selfsubject");
                let resp = next.run(req).await;
                if change {
                    arrived.notify_one();
                    tokio::time::sleep(delay).await;
                }
                resp
            }
        },
    ))
}

impl Harness {
    /// The footer's notice; a test that expects one fails here without it.
    pub fn notice_text(&self) -> String {
        self.model.notice().expect("a notice").text
    }

    pub fn new(world: SimWorld, opts: Options) -> Harness {
        let user = "operator-jane";
        let mosk_world = opts.mosk_seed.map(|seed| SimWorld::new(world.spec(), seed));
        let served = mosk_world.as_ref().unwrap_or(&world);
        let mut rbac = Rbac::allow_all(user);
        rbac.deny = opts.deny.clone();
        served.set_rbac(SimCluster::Mosk, rbac.clone());
        let review_router = served.mosk_router();
        let mut enforcing = rbac;
        enforcing.deny.extend(opts.deny_at_execution_only.clone());
        served.set_rbac(SimCluster::Mosk, enforcing);
        let enforce_router = served.mosk_router();
        // Access reviews answered by the review table, everything else by the enforcing one.
        let mosk_router = enforce_router.layer(axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                let review_router = review_router.clone();
                async move {
                    if req.uri().path().ends_with("/selfsubjectaccessreviews") {
                        use tower::ServiceExt;
                        review_router.oneshot(req).await.unwrap()
                    } else {
                        next.run(req).await
                    }
                }
            },
        ));
        let mosk_router = if opts.self_subject_review {
            mosk_router
        } else {
            without_self_subject_review(mosk_router)
        };
        let mosk_router = match opts.review_fault {
            Some(f) => with_review_fault(mosk_router, f),
            None => mosk_router,
        };
        let arrived = Arc::new(tokio::sync::Notify::new());
        let mosk_router = match opts.answer_delay {
            Some(d) => with_answer_delay(mosk_router, d, arrived.clone()),
            None => mosk_router,
        };
        let mosk_router = match opts.after_node_get.clone() {
            Some(h) => with_node_get_hook(mosk_router, h),
            None => mosk_router,
        };
        let dir = tempfile::tempdir().unwrap();
        let audit_path = opts
            .audit_path
            .clone()
            .unwrap_or_else(|| dir.path().join("state/audit.jsonl"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let mosk = Client::new(
            recorded(mosk_router, requests.clone(), audit_path.clone()),
            "default",
        );
        let mgmt = Client::new(world.mgmt_router(), "default");
        let audit = Arc::new(AuditLog::open(Some(&audit_path)).unwrap());
        if opts.audit_unwritable {
            break_audit_file(&audit_path);
        }
        let (tx, rx) = unbounded_channel();
        let keys = tx.clone();
        let session = SessionInfo {
            mgmt_context: "sim-mgmt".into(),
            mosk_context: "sim-mosk".into(),
            namespace: world.spec().namespace,
            read_only: opts.mode == WriteMode::ReadOnly,
            dry_run: opts.mode == WriteMode::DryRun,
            mgmt_transport: opts.transports.mgmt,
            mosk_transport: opts.transports.mosk,
            ..SessionInfo::default()
        };
        let exec = ActionExecutor::new(ExecutorConfig {
            mgmt,
            mosk,
            mgmt_context: "sim-mgmt".into(),
            mosk_context: "sim-mosk".into(),
            mgmt_user: Some("kubeconfig-user".into()),
            mosk_user: Some("kubeconfig-user".into()),
            transports: opts.transports,
            audit,
            mode: opts.mode,
            project: session.namespace.clone(),
            events: to_msgs(tx.clone()),
            replacement_timeout: opts.replacement_timeout,
        });
        let exec = ConsoleEffects::with_executor(exec, tx);
        let model = Model::new(session, Keymap::default_keymap(), world.now());
        let mut h = Harness {
            world,
            mosk_world,
            model,
            exec,
            rx,
            tx: keys,
            arrived,
            requests,
            audit_path,
            _dir: dir,
            _earlier_dir: None,
        };
        // What a console does when it starts: read its audit log back.
        h.exec.read_back(&h.audit_path.clone());
        while let Ok(msg) = h.rx.try_recv() {
            h.apply(msg);
        }
        h.refresh();
        h
    }

    /// A fresh console (a new model and executor, nothing kept in memory)
    /// on the same world and the same audit log: the operator quit and
    /// started the console again.
    pub fn restart(self, mut opts: Options) -> Harness {
        let Harness {
            world,
            audit_path,
            _dir,
            ..
        } = self;
        opts.audit_path = Some(audit_path);
        let mut h = Harness::new(world, opts);
        h._earlier_dir = Some(_dir);
        h
    }

    /// Types a `:` command and Enter.
    pub fn command(&mut self, text: &str) {
        self.press(':');
        for c in text.chars() {
            self.press(c);
        }
        self.key(KeyCode::Enter, KeyModifiers::NONE);
    }

    /// The whole screen at 120x40, as text.
    pub fn screen(&self) -> String {
        let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).unwrap();
        let theme = mosk_console::config::theme::Theme::load("mono").unwrap();
        t.draw(|f| mosk_console::ui::draw(f, &self.model, &theme))
            .unwrap();
        format!("{}", t.backend())
    }

    /// What the watchers would show: every watched object, converted, and
    /// fed through the History as a re-list (what the console sees after a
    /// watch restart), so rules that read what the console saw over time
    /// see each refresh.
    pub fn refresh(&mut self) {
        self.model.now = self.world.now();
        for kind in Kind::ALL {
            let store = match kind.cluster() {
                ClusterId::Mgmt => self.world.mgmt(),
                ClusterId::Mosk => self.mosk_world.as_ref().unwrap_or(&self.world).mosk(),
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

    /// Runs `update` on `msg` and the commands it returns through the effects.
    pub fn apply(&mut self, msg: Msg) {
        for cmd in update(&mut self.model, msg) {
            self.exec.run(cmd);
        }
    }

    /// A key, pressed after a frame was drawn (as the runtime does: keys act
    /// on what the last frame showed).
    pub fn key(&mut self, code: KeyCode, mods: KeyModifiers) {
        let theme = mosk_console::config::theme::Theme::default_theme();
        let frame = mosk_console::ui::report_at(&self.model, &theme, 160, 48);
        self.apply(Msg::Drawn(frame));
        self.apply(Msg::Key(KeyEvent::new(code, mods)));
    }

    pub fn press(&mut self, c: char) {
        self.key(KeyCode::Char(c), KeyModifiers::NONE);
    }

    /// A clock tick: refreshes the RBAC answers, waits for them.
    pub async fn tick_and_settle(&mut self) {
        self.refresh();
        let now = self.model.now;
        self.apply(Msg::Tick(now));
        let pending = self.model.actions.access.pending.len();
        for _ in 0..pending {
            self.next_msg().await;
        }
    }

    pub async fn next_msg(&mut self) -> Msg {
        let msg = tokio::time::timeout(Duration::from_secs(3600), self.rx.recv())
            .await
            .expect("a message from the executor within the safety timeout")
            .expect("executor channel open");
        self.apply(msg.clone());
        msg
    }

    /// Feeds the executor's messages to `update` until the running plan
    /// finishes; when no message comes, the simulated world moves on by one
    /// second if `step_world`. Returns the outcome.
    pub async fn run_to_end(&mut self, step_world: bool) -> RunOutcome {
        assert!(
            self.model.actions.running.is_some(),
            "nothing is running: dialog {:?}, notice {:?}",
            self.model.modals.dialog(),
            self.model.notice()
        );
        self.pump_until(step_world, |m| {
            m.actions
                .running
                .as_ref()
                .is_some_and(|r| r.outcome.is_some())
        })
        .await;
        self.model
            .actions
            .running
            .as_ref()
            .and_then(|r| r.outcome.clone())
            .unwrap()
    }

    /// Like [`Harness::run_to_end`], until `done` holds for the model.
    pub async fn pump_until(&mut self, step_world: bool, done: impl Fn(&Model) -> bool) {
        // A bound on simulated time, so a condition that never holds fails
        // the test instead of stepping the world forever.
        let mut steps = 0u32;
        while !done(&self.model) {
            steps += 1;
            assert!(
                steps < 200_000,
                "condition never held; running action: {:?}",
                self.model.actions.running
            );
            if step_world {
                match tokio::time::timeout(Duration::from_millis(10), self.rx.recv()).await {
                    Ok(Some(msg)) => self.apply(msg),
                    Ok(None) => panic!("executor channel closed"),
                    Err(_) => {
                        self.world.step(SignedDuration::from_secs(1));
                        self.refresh();
                    }
                }
            } else {
                self.next_msg().await;
            }
        }
    }

    /// Closes a finished progress dialog.
    pub fn close(&mut self) {
        self.key(KeyCode::Enter, KeyModifiers::NONE);
        assert!(
            self.model.modals.dialog().is_none(),
            "{:?}",
            self.model.modals.dialog()
        );
    }

    pub fn writes(&self) -> Vec<Seen> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.is_write())
            .cloned()
            .collect()
    }

    /// Writes other than access and identity reviews.
    pub fn changes(&self) -> Vec<Seen> {
        self.writes()
            .into_iter()
            .filter(|r| !r.path.contains("selfsubject"))
            .collect()
    }

    pub fn audit(&self) -> Vec<AuditRecord> {
        audit::read(&self.audit_path).unwrap()
    }

    pub fn node(&self, name: &str) -> Value {
        self.world.mosk().get("nodes", None, name).unwrap()
    }

    pub fn annotation(&self, node: &str, key: &str) -> Option<String> {
        self.node(node)
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    pub fn vrouter_pods(&self) -> Vec<Value> {
        self.world
            .mosk()
            .list("pods", Some("tf"))
            .into_iter()
            .filter(|p| str_at(p, "/metadata/name").starts_with("tf-vrouter"))
            .collect()
    }

    pub fn pod_on(&self, node: &str) -> Value {
        self.vrouter_pods()
            .into_iter()
            .find(|p| {
                str_at(p, "/spec/nodeName") == node
                    && p.pointer("/metadata/deletionTimestamp").is_none()
            })
            .unwrap_or_else(|| panic!("no vRouter pod on {node}"))
    }

    /// Selects exactly these nodes (as `space` on their rows would).
    /// Sets `node`'s migration mode to manual through the keys (`m`, the
    /// picker's next entry after live, Enter, `y`) and runs it to the end.
    pub async fn set_manual(&mut self, node: &str) -> RunOutcome {
        self.select(&[node]);
        self.press('m');
        self.press('j'); // manual
        self.key(KeyCode::Enter, KeyModifiers::NONE);
        self.press('y');
        let outcome = self.run_to_end(false).await;
        self.close();
        self.model.selected_nodes_mut().clear();
        outcome
    }

    /// Acknowledges `node`'s migration through the keys (`a`, `y`) and runs
    /// it to the end.
    pub async fn acknowledge(&mut self, node: &str) -> RunOutcome {
        self.select(&[node]);
        self.press('a');
        self.press('y');
        let outcome = self.run_to_end(false).await;
        self.close();
        self.model.selected_nodes_mut().clear();
        outcome
    }

    /// Sets `node` from live to manual with `attempts` (one digit) through
    /// the mode dialog's keys, confirms, and runs the write to its end.
    pub async fn set_manual_with_attempts(&mut self, node: &str, attempts: char) -> RunOutcome {
        self.select(&[node]);
        self.press('m');
        self.press('j'); // live -> manual
        self.key(KeyCode::Tab, KeyModifiers::NONE);
        self.press(attempts);
        self.key(KeyCode::Enter, KeyModifiers::NONE);
        self.press('y');
        self.run_to_end(false).await
    }

    pub fn select(&mut self, nodes: &[&str]) {
        *self.model.selected_nodes_mut() = nodes.iter().map(|n| n.to_string()).collect();
    }

    /// Computes of the scenario, in order: (machine, node).
    pub fn computes(&self) -> Vec<String> {
        self.world
            .machines()
            .into_iter()
            .filter(|m| m.has_vrouter())
            .map(|m| m.node)
            .collect()
    }
}

/// The node whose OpenStack lock waits for the operator (servers still
/// present), leaving out the nodes already acknowledged (an acknowledged
/// node keeps its message until the controller's next retry).
pub fn waiting_node(world: &SimWorld, acknowledged: &[String]) -> Option<String> {
    world
        .mosk()
        .list("nodeworkloadlocks", None)
        .into_iter()
        .find(|l| {
            !acknowledged
                .iter()
                .any(|n| n == str_at(l, "/spec/nodeName"))
                && str_at(l, "/spec/controllerName") == "openstack"
                && str_at(l, "/status/errorMessage").contains("Some servers are still present")
        })
        .map(|l| str_at(&l, "/spec/nodeName").to_string())
}

pub fn str_at<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or_default()
}
