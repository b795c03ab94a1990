//! Layering the compiler cannot see, checked by reading the source: which
//! top-level module of `src/` may name which (issue 9, item 6).
//!
//! - `domain` knows no other module of ours and no kube, k8s-openapi,
//!   ratatui, crossterm or tokio;
//! - `sim` (the simulated clusters) knows nothing of the console;
//! - `cluster` does not name `app`, `ui` or `console`;
//! - `app` does not name `ui` or `console`.
//!
//! Crossings that exist today are listed in [`KNOWN`], each with the file
//! and the module it names. The list may only shrink: a new crossing fails
//! the test, and so does a listed one that is gone (remove it from the
//! list), so the rule holds as the code moves.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// (layer, modules of ours it must not name, external crates it must not name).
const RULES: &[(&str, &[&str], &[&str])] = &[
    (
        "domain",
        &[
            "app", "ui", "cluster", "console", "sim", "config", "terminal",
        ],
        &["kube", "k8s_openapi", "ratatui", "crossterm", "tokio"],
    ),
    (
        "sim",
        &[
            "app", "ui", "cluster", "console", "domain", "config", "terminal",
        ],
        &["ratatui", "crossterm"],
    ),
    (
        "cluster",
        &["app", "ui", "console", "terminal"],
        &["ratatui", "crossterm"],
    ),
    ("app", &["ui", "console", "terminal"], &[]),
];

/// Crossings still to remove (issue 9, item 6): (file under src/, module named).
const KNOWN: &[(&str, &str)] = &[];

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a line: nothing of comments (`//`, doc comments).
fn code(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// The identifiers that follow `prefix` in `text` (`crate::app::x` → `app`).
fn named_after<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        let before_ok = i == 0
            || !rest[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let after = &rest[i + prefix.len()..];
        let end = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if before_ok && end > 0 {
            out.push(&after[..end]);
        }
        rest = &after[end..];
    }
    out
}

/// Every (file, module or crate) crossing a rule, file relative to `src/`.
fn crossings() -> BTreeSet<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let mut found = BTreeSet::new();
    for f in files {
        let rel = f
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let layer = rel.split(['/', '.']).next().unwrap().to_string();
        let Some((_, ours, theirs)) = RULES.iter().find(|(l, _, _)| *l == layer) else {
            continue;
        };
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines().map(code) {
            for m in named_after(line, "crate::") {
                if ours.contains(&m) {
                    found.insert((rel.clone(), m.to_string()));
                }
            }
            for c in theirs.iter() {
                let used = !named_after(line, &format!("{c}::")).is_empty()
                    || line.trim_start().starts_with(&format!("use {c};"));
                if used {
                    found.insert((rel.clone(), c.to_string()));
                }
            }
        }
    }
    found
}

#[test]
fn modules_name_only_the_layers_below_them() {
    let found = crossings();
    let known: BTreeSet<(String, String)> = KNOWN
        .iter()
        .map(|(f, m)| (f.to_string(), m.to_string()))
        .collect();
    let new: Vec<_> = found.difference(&known).collect();
    let gone: Vec<_> = known.difference(&found).collect();
    assert!(
        new.is_empty(),
        "new crossings of the layering (see tests/layering.rs for the rules):\n{new:#?}"
    );
    assert!(
        gone.is_empty(),
        "these crossings are gone: remove them from KNOWN in tests/layering.rs:\n{gone:#?}"
    );
}

#[test]
fn the_checker_sees_a_crossing() {
    // So the test above can fail: a line naming a forbidden module is found,
    // one in a comment is not.
    assert_eq!(
        named_after("use crate::app::model::Model;", "crate::"),
        ["app"]
    );
    assert!(named_after(code("// see crate::app::model"), "crate::").is_empty());
    assert_eq!(
        named_after("let x = my_crate::app::y + crate::ui::z;", "crate::"),
        ["ui"]
    );
}
