//! Generators of hostile cluster data: strings built from pieces (escape
//! sequences raw and in 8-bit form, C0/C1 controls, bidi overrides and
//! isolates, zero-width and combining characters, invalid UTF-8, 1 MB
//! strings), and the objects and log lines that carry them.
//!
//! Every injected sequence carries a body with a marker ([`FORBIDDEN`]) that
//! plain pieces never contain, so a remnant of a sequence on screen is found
//! by looking for the markers.

use proptest::prelude::*;
use serde_json::{Value, json};

/// Text that only injected sequences contain: none of it may be drawn.
pub const FORBIDDEN: &[&str] = &["PWN", "1337", "2J", "]0;", "]52;", "P1$r", "544e"];

/// The harmless words strings are made of (no marker, no bracket).
const WORDS: &[&str] = &[
    "kaas-node-1",
    "worker",
    "Ready",
    "drain",
    "openstack",
    "tf-vrouter",
    "active",
    "inactive",
    "lock",
    "status ok",
    "節点",
    "Ελλάδα",
    "café",
    "🚀",
    "✅",
    "ｗｉｄｅ",
    "שלום",
    "مرحبا",
    "",
];

/// Escape sequences as a hostile server would send them, one per kind;
/// `(name for the counts, bytes)`.
pub const SEQUENCES: &[(&str, &str)] = &[
    ("csi", "\x1b[2J"),
    ("csi", "\x1b[1337;31;42m"),
    ("csi", "\x1b[?1337h"),
    ("csi", "\x1b[10;1337H"),
    ("osc0", "\x1b]0;PWN title\x07"),
    ("osc0", "\x1b]0;PWN title\x1b\\"),
    ("osc52", "\x1b]52;c;UFdOIHJtIC1yZiAv\x07"),
    ("osc52", "\x1b]52;c;UFdOIHJtIC1yZiAv\x1b\\"),
    ("osc8", "\x1b]8;;http://PWN.example\x1b\\"),
    ("dcs", "\x1bP1$r0m\x1b\\"),
    ("dcs", "\x1bP+q544e\x1b\\"),
    ("apc", "\x1b_Gf=100;PWN\x1b\\"),
    ("pm", "\x1b^PWN\x1b\\"),
    ("sos", "\x1bXPWN\x1b\\"),
    ("c1-8bit", "\u{9b}2J"),
    ("c1-8bit", "\u{9b}1337m"),
    ("c1-8bit", "\u{9d}52;c;UFdO\u{9c}"),
    ("c1-8bit", "\u{9d}0;PWN\u{7}"),
    ("c1-8bit", "\u{90}1$r0m\u{9c}"),
    ("c1-8bit", "\u{9f}PWN\u{9c}"),
    // Unterminated: swallows the rest of the string.
    ("unterminated", "\x1b]52;c;PWN"),
    ("unterminated", "\x1b[1337"),
];

/// Kinds of piece, for the counts in docs/RELIABILITY.md.
pub const PIECE_KINDS: &[&str] = &[
    "plain",
    "csi",
    "osc0",
    "osc52",
    "osc8",
    "dcs",
    "apc",
    "pm",
    "sos",
    "c1-8bit",
    "unterminated",
    "c0",
    "c1",
    "bidi",
    "zero-width",
    "combining",
    "invalid-utf8",
    "1 MB",
];

/// One piece of a hostile string.
#[derive(Debug, Clone)]
pub enum Piece {
    Word(&'static str),
    Seq(usize),
    C0(u8),
    C1(char),
    Bidi(char),
    ZeroWidth(char),
    /// A base letter and a run of combining marks.
    Marks(char, usize),
    Invalid(Vec<u8>),
}

impl Piece {
    pub fn kind(&self) -> &'static str {
        match self {
            Piece::Word(_) => "plain",
            Piece::Seq(i) => SEQUENCES[*i].0,
            Piece::C0(_) => "c0",
            Piece::C1(_) => "c1",
            Piece::Bidi(_) => "bidi",
            Piece::ZeroWidth(_) => "zero-width",
            Piece::Marks(..) => "combining",
            Piece::Invalid(_) => "invalid-utf8",
        }
    }

    fn push_bytes(&self, out: &mut Vec<u8>) {
        let mut push = |s: &str| out.extend_from_slice(s.as_bytes());
        match self {
            Piece::Word(w) => push(w),
            Piece::Seq(i) => push(SEQUENCES[*i].1),
            Piece::C0(b) => out.push(*b),
            Piece::C1(c) | Piece::Bidi(c) | Piece::ZeroWidth(c) => push(&c.to_string()),
            Piece::Marks(m, n) => {
                push("e");
                for _ in 0..*n {
                    push(&m.to_string());
                }
            }
            Piece::Invalid(b) => out.extend_from_slice(b),
        }
    }
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        3 => prop::sample::select(WORDS).prop_map(Piece::Word),
        4 => (0..SEQUENCES.len()).prop_map(Piece::Seq),
        // C0 (LF, CR and TAB included: line structure, spaced) and DEL; ESC
        // alone more often.
        1 => prop_oneof![(0u8..0x20), Just(0x7fu8), Just(0x1bu8)].prop_map(Piece::C0),
        1 => (0x80u32..0xA0).prop_map(|c| Piece::C1(char::from_u32(c).unwrap())),
        1 => prop::sample::select(&[
            '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}',
            '\u{2067}', '\u{2068}', '\u{2069}', '\u{200E}', '\u{200F}', '\u{061C}',
        ][..]).prop_map(Piece::Bidi),
        1 => prop::sample::select(&[
            '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{00AD}',
            '\u{180E}', '\u{E0001}', '\u{E0041}', '\u{FE0F}', '\u{034F}',
        ][..]).prop_map(Piece::ZeroWidth),
        1 => (prop::sample::select(&['\u{301}', '\u{336}', '\u{20DD}', '\u{1AB0}', '\u{FE20}'][..]), 1usize..60)
            .prop_map(|(m, n)| Piece::Marks(m, n)),
        1 => prop::collection::vec(prop_oneof![Just(0xffu8), Just(0xc3), Just(0x9b), Just(0xe2), Just(0x80), Just(0xed)], 1..4)
            .prop_map(Piece::Invalid),
    ]
}

/// A hostile string: its pieces, and whether it is blown up to 1 MB.
#[derive(Debug, Clone)]
pub struct Hostile {
    pub pieces: Vec<Piece>,
    pub huge: bool,
}

pub const MEGABYTE: usize = 1 << 20;

/// Longest JSON-escaped log line generated: under the follower's default
/// `max_line_chars` (2000).
const JSON_LINE_CHARS: usize = 1900;

impl Hostile {
    /// The bytes as a server would send them (invalid UTF-8 included).
    pub fn bytes(&self) -> Vec<u8> {
        let mut one = Vec::new();
        for p in &self.pieces {
            p.push_bytes(&mut one);
        }
        if !self.huge || one.is_empty() {
            return one;
        }
        let mut out = Vec::with_capacity(MEGABYTE + one.len());
        while out.len() < MEGABYTE {
            out.extend_from_slice(&one);
        }
        out
    }

    /// The text a JSON decoder hands over: invalid bytes are U+FFFD (a body
    /// with raw invalid UTF-8 is refused whole by serde_json, so what reaches
    /// `convert` is decoded text).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes()).into_owned()
    }
}

/// A hostile string; one in `huge_one_in` is 1 MB.
pub fn hostile(huge_one_in: u32) -> impl Strategy<Value = Hostile> {
    (prop::collection::vec(piece(), 1..7), 0..huge_one_in).prop_map(|(pieces, h)| Hostile {
        pieces,
        huge: h == 0,
    })
}

/// How a log line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineForm {
    /// The hostile bytes as the line.
    Plain,
    /// A zap JSON line with the strings `\uXXXX`-escaped (valid JSON).
    JsonEscaped,
    /// A JSON line with the raw bytes inside the strings (invalid JSON).
    JsonRaw,
}

/// One log line: its form and the strings in msg, logger, a key and a value.
#[derive(Debug, Clone)]
pub struct LogLineSpec {
    pub form: LineForm,
    pub msg: Hostile,
    pub extra: Hostile,
    /// `\u`-escape every non-ASCII character too (else only controls).
    pub escape_all: bool,
}

pub fn log_line() -> impl Strategy<Value = LogLineSpec> {
    (
        prop_oneof![
            Just(LineForm::Plain),
            Just(LineForm::JsonEscaped),
            Just(LineForm::JsonRaw)
        ],
        hostile(400),
        hostile(1_000_000),
        any::<bool>(),
    )
        .prop_map(|(form, msg, extra, escape_all)| LogLineSpec {
            form,
            msg,
            extra,
            escape_all,
        })
}

/// JSON string contents for `s`, `\uXXXX` escaping controls (and everything
/// non-ASCII when `all`).
fn json_escape(s: &str, all: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20
                || c == '\u{7f}'
                || (all && !c.is_ascii())
                || ('\u{80}'..='\u{9f}').contains(&c) =>
            {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

impl LogLineSpec {
    /// The line as the API server streams it with `timestamps=true`.
    pub fn wire(&self) -> Vec<u8> {
        let mut out = b"2026-03-01T10:00:00.000000000Z ".to_vec();
        match self.form {
            LineForm::Plain => out.extend_from_slice(&self.msg.bytes()),
            LineForm::JsonEscaped => {
                // Kept within the follower's line cap so it parses as JSON: a
                // longer line is cut and shown as plain text, its escapes
                // spelled out (inert; the 1 MB strings go through plain lines,
                // raw JSON lines and objects).
                let (mut msg, mut extra) = (self.msg.text(), self.extra.text());
                loop {
                    let (m, e) = (
                        json_escape(&msg, self.escape_all),
                        json_escape(&extra, self.escape_all),
                    );
                    let line = format!(
                        r#"{{"level":"error","ts":"2026-03-01T10:00:00Z","logger":"{e}","msg":"{m}","{e}":"{e}","n":{{"k":["{m}"]}}}}"#
                    );
                    if line.chars().count() <= JSON_LINE_CHARS {
                        out.extend_from_slice(line.as_bytes());
                        break;
                    }
                    msg = msg.chars().take(msg.chars().count() / 2).collect();
                    extra = extra.chars().take(extra.chars().count() / 2).collect();
                }
            }
            LineForm::JsonRaw => {
                out.extend_from_slice(br#"{"level":"warn","msg":""#);
                out.extend_from_slice(&self.msg.bytes());
                out.extend_from_slice(br#"",""#);
                out.extend_from_slice(&self.extra.bytes());
                out.extend_from_slice(br#"":"x"}"#);
            }
        }
        // A line never holds a newline on the wire: the reader splits there.
        out.retain(|&b| b != b'\n');
        out
    }
}

/// The strings one case puts into objects.
#[derive(Debug, Clone)]
pub struct ObjectStrings {
    pub machine: Hostile,
    pub node: Hostile,
    pub state: Hostile,
    pub message: Hostile,
    pub lock_message: Hostile,
    pub label: Hostile,
    pub annotation: Hostile,
    pub pod: Hostile,
}

pub fn object_strings() -> impl Strategy<Value = ObjectStrings> {
    (
        hostile(2_000),
        hostile(2_000),
        hostile(2_000),
        hostile(1_000),
        hostile(1_000),
        hostile(2_000),
        hostile(1_000),
        hostile(2_000),
    )
        .prop_map(
            |(machine, node, state, message, lock_message, label, annotation, pod)| ObjectStrings {
                machine,
                node,
                state,
                message,
                lock_message,
                label,
                annotation,
                pod,
            },
        )
}

impl ObjectStrings {
    pub fn all(&self) -> [&Hostile; 8] {
        [
            &self.machine,
            &self.node,
            &self.state,
            &self.message,
            &self.lock_message,
            &self.label,
            &self.annotation,
            &self.pod,
        ]
    }

    /// Every watched kind's object carrying the strings, as `(kind, JSON)`;
    /// `round` 0 and 1 differ in state and message, so the second apply is a
    /// change the history (Events view) records.
    pub fn objects(&self, round: usize) -> Vec<(mosk_console::domain::objects::Kind, Value)> {
        use mosk_console::domain::objects::Kind;
        let machine = format!("m-{}", self.machine.text());
        let node = self.node.text();
        let state = if round == 0 {
            self.state.text()
        } else {
            "Ready".to_string()
        };
        let message = format!("{round} {}", self.message.text());
        let lock_message = format!(
            "2026-03-01 10:00:0{round} Instance {} is not migrated yet",
            self.lock_message.text()
        );
        let label = self.label.text();
        let annotation = self.annotation.text();
        let pod = format!("tf-vrouter-agent-{}", self.pod.text());
        // Labels everywhere; the (possibly 1 MB) annotation only where the
        // console reads one, to keep a case's copying bounded.
        let mut labels = serde_json::Map::new();
        labels.insert("hostile".into(), json!(label));
        labels.insert(label.clone(), json!("v"));
        let meta = |name: &str| {
            json!({"name": name, "uid": "u-1", "resourceVersion": "1",
                "creationTimestamp": "2026-03-01T09:00:00Z", "labels": labels})
        };
        let ns_meta = |name: &str, ns: &str| {
            let mut m = meta(name);
            m["namespace"] = json!(ns);
            m
        };
        let annotated = |mut m: Value, keys: &[&str]| {
            let a: serde_json::Map<String, Value> = keys
                .iter()
                .map(|k| (k.to_string(), json!(annotation)))
                .collect();
            m["annotations"] = Value::Object(a);
            m
        };
        let machine_meta = annotated(ns_meta(&machine, "child-ns"), &["lcm.mirantis.com/index"]);
        let node_meta = annotated(
            meta(&node),
            &[
                "openstack.lcm.mirantis.com/instance_migration_mode",
                "openstack.lcm.mirantis.com/instance_migration_attempts",
            ],
        );
        let lock_meta = annotated(meta(&format!("openstack-{node}")), &["inner_state"]);
        vec![
            (
                Kind::LcmCluster,
                json!({"metadata": ns_meta("child-cl", "child-ns"),
                "spec": {"release": message}, "status": {"release": state, "requestedNodes": 3, "readyNodes": 2}}),
            ),
            (
                Kind::LcmMachine,
                json!({"metadata": machine_meta,
                "spec": {"clusterName": "child-cl", "type": if round == 0 { "worker" } else { "control" }},
                "status": {"state": state, "agentVersion": annotation, "release": message,
                    "addresses": [{"type": "InternalIP", "address": label}, {"type": "Hostname", "address": node}]}}),
            ),
            (
                Kind::LcmClusterState,
                json!({"metadata": ns_meta(&format!("cs-{machine}"), "child-ns"),
                "spec": {"clusterName": "child-cl", "type": state, "arg": machine, "value": "true"},
                "status": {"value": if round == 0 { "false" } else { "true" }, "attempt": round, "message": message}}),
            ),
            (
                Kind::Node,
                json!({"metadata": node_meta,
                "spec": {"unschedulable": round == 0},
                "status": {"conditions": [{"type": "Ready", "status": if round == 0 { "False" } else { "True" }, "message": message}]}}),
            ),
            (
                Kind::ClusterMaintenanceRequest,
                json!({"metadata": meta(&format!("cmr-{label}")),
                "spec": {"scope": state, "release": message}}),
            ),
            (
                Kind::NodeMaintenanceRequest,
                json!({"metadata": meta(&node),
                "spec": {"nodeName": node, "scope": state, "release": message}}),
            ),
            (
                Kind::ClusterWorkloadLock,
                json!({"metadata": meta(&format!("openstack-{label}")),
                "spec": {"controllerName": label},
                "status": {"state": if round == 0 { "active" } else { "inactive" }, "errorMessage": lock_message, "release": message,
                    "inactivationProgress": {"percentage": 40, "description": message}}}),
            ),
            (
                Kind::NodeWorkloadLock,
                json!({"metadata": lock_meta,
                "spec": {"controllerName": "openstack", "nodeName": node},
                "status": {"state": if round == 0 { state.as_str() } else { "active" }, "errorMessage": lock_message, "release": message}}),
            ),
            // Malformed: a wrong type, shown as an error row with its (hostile) name.
            (
                Kind::NodeWorkloadLock,
                json!({"metadata": meta(&format!("bad-{machine}")),
                "spec": {"controllerName": label, "nodeName": node}, "status": {"state": 5}}),
            ),
            (
                Kind::VrouterPod,
                json!({"metadata": {
                    "name": pod, "namespace": "tf", "uid": "p-1",
                    "creationTimestamp": "2026-03-01T09:00:00Z",
                    "labels": {"controller-revision-hash": label, "pod-template-generation": "2"},
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": label, "uid": "d-1"}]},
                "spec": {"nodeName": node, "containers": [{"name": label}]},
                "status": {"phase": state, "conditions": [{"type": "Ready", "status": "True", "message": message}]}}),
            ),
            (
                Kind::VrouterDaemonSet,
                json!({"metadata": {"name": format!("tf-vrouter-{label}"), "namespace": "tf", "generation": 2},
                "spec": {"selector": {}, "template": {}, "updateStrategy": {"type": state}},
                "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 3, "numberMisscheduled": 0,
                    "numberReady": 2, "updatedNumberScheduled": 1, "observedGeneration": 2}}),
            ),
        ]
    }
}
