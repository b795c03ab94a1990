//! Layering the compiler cannot see, checked by reading the source: which
//! top-level module of `src/` may name which, and inside `src/app/` that
//! no import circle takes in more than two files and no view names
//! another view or `update`.
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

use std::collections::{BTreeMap, BTreeSet};
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

/// Crossings still to remove: (file under src/, module named).
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

// Inside `src/app/`: files, and which files each names.

/// The module path of a file under `src/` (`app/views/mod.rs` and
/// `app/views.rs` are both `app::views`).
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The paths a line names after `prefix`, with `{a, b::c}` groups opened:
/// `use crate::app::{model::Model, views}` names `app::model::Model` and
/// `app::views`.
fn paths_after(line: &str, prefix: &str) -> Vec<Vec<String>> {
    fn ident(c: char) -> bool {
        c.is_alphanumeric() || c == '_'
    }
    fn simple(text: &str) -> Vec<String> {
        text.split("::")
            .map(|s| {
                s.trim()
                    .chars()
                    .take_while(|c| ident(*c))
                    .collect::<String>()
            })
            .take_while(|s| !s.is_empty())
            .collect()
    }
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find(prefix) {
        let before_ok = i == 0 || !rest[..i].chars().next_back().is_some_and(ident);
        let mut s = &rest[i + prefix.len()..];
        rest = s;
        if !before_ok {
            continue;
        }
        let mut base: Vec<String> = Vec::new();
        loop {
            if let Some(group) = s.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    let mut path = base.clone();
                    path.extend(simple(item).into_iter().filter(|p| p != "self"));
                    if !path.is_empty() {
                        out.push(path);
                    }
                }
                break;
            }
            let seg: String = s.chars().take_while(|c| ident(*c)).collect();
            if seg.is_empty() {
                if !base.is_empty() {
                    out.push(base);
                }
                break;
            }
            s = &s[seg.len()..];
            base.push(seg);
            match s.strip_prefix("::") {
                Some(r) => s = r,
                None => {
                    out.push(base);
                    break;
                }
            }
        }
    }
    out
}

/// Every file of `src/app/` and the files of `src/app/` it names (by
/// `crate::app::…` or `super::…`, resolved to the deepest module that is a
/// file), comments left out.
fn app_imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&src.join("app"), &mut files);
    let rel = |f: &Path| {
        f.strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/")
    };
    let modules: BTreeMap<Vec<String>, String> =
        files.iter().map(|f| (module_of(&rel(f)), rel(f))).collect();
    let resolve = |path: &[String]| {
        (1..=path.len())
            .rev()
            .find_map(|n| modules.get(&path[..n]).cloned())
    };
    let mut graph = BTreeMap::new();
    for f in &files {
        let me = rel(f);
        let module = module_of(&me);
        let text = std::fs::read_to_string(f).unwrap();
        let mut names = BTreeSet::new();
        for line in text.lines().map(code) {
            let mut found = Vec::new();
            for p in paths_after(line, "crate::") {
                found.push(p);
            }
            for p in paths_after(line, "super::") {
                let mut full = module[..module.len() - 1].to_vec();
                full.extend(p);
                found.push(full);
            }
            for p in found {
                if let Some(file) = resolve(&p)
                    && file != me
                    && p.first().is_some_and(|s| s == "app")
                {
                    names.insert(file);
                }
            }
        }
        graph.insert(me, names);
    }
    graph
}

/// The import circles of more than two files (each once, from its
/// smallest file), up to `longest` files long.
fn long_circles(graph: &BTreeMap<String, BTreeSet<String>>, longest: usize) -> Vec<Vec<String>> {
    fn walk(
        graph: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        path: &mut Vec<String>,
        longest: usize,
        out: &mut Vec<Vec<String>>,
    ) {
        let last = path.last().unwrap().clone();
        for next in graph.get(&last).into_iter().flatten() {
            if next == start && path.len() > 2 {
                out.push(path.clone());
            } else if next.as_str() > start && !path.contains(next) && path.len() < longest {
                path.push(next.clone());
                walk(graph, start, path, longest, out);
                path.pop();
            }
        }
    }
    let mut out = Vec::new();
    for start in graph.keys() {
        walk(graph, start, &mut vec![start.clone()], longest, &mut out);
    }
    out
}

/// The rule inside `src/app/`: no import circle of more than two files.
/// Two files may name each other (the model holds a type whose functions
/// take the model); a third in the circle means a type sits above what
/// uses it, and everything in the circle changes together.
#[test]
fn app_has_no_import_circle_of_more_than_two_files() {
    let circles = long_circles(&app_imports(), 12);
    let shown: Vec<String> = circles.iter().map(|c| c.join(" -> ")).collect();
    assert!(
        circles.is_empty(),
        "import circles of more than two files in src/app/:\n{}",
        shown.join("\n")
    );
}

/// The views (`app/views/<view>.rs`) are one seam: a view names no other
/// view and not `update`; `views/mod.rs` (the seam), `views/view.rs` (what
/// a view is called), `views/table_keys.rs` (the keys every table shares)
/// and `views/details.rs` (the keys of a details pane beside a table) are
/// not views.
#[test]
fn a_view_names_no_other_view_and_not_update() {
    const NOT_VIEWS: [&str; 4] = [
        "app/views/mod.rs",
        "app/views/view.rs",
        "app/views/table_keys.rs",
        "app/views/details.rs",
    ];
    let graph = app_imports();
    let views: Vec<&String> = graph
        .keys()
        .filter(|f| f.starts_with("app/views/") && !NOT_VIEWS.contains(&f.as_str()))
        .collect();
    assert!(views.len() >= 6, "the view modules: {views:?}");
    let mut wrong = Vec::new();
    for v in &views {
        for named in &graph[*v] {
            if named == "app/update.rs" || (views.contains(&named) && named != *v) {
                wrong.push(format!("{v} names {named}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_circle_checker_sees_a_circle_and_the_paths_a_line_names() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", &["b"][..]),
        ("b", &["c", "a"][..]),
        ("c", &["a"][..]),
        ("d", &["a"][..]),
    ]
    .into_iter()
    .map(|(f, to)| (f.to_string(), to.iter().map(|s| s.to_string()).collect()))
    .collect();
    assert_eq!(long_circles(&graph, 12), [["a", "b", "c"]]);
    assert_eq!(
        paths_after("use crate::app::{model::Model, views};", "crate::"),
        [vec!["app", "model", "Model"], vec!["app", "views"]]
    );
    assert_eq!(
        paths_after("use crate::app::views::{self, Outcome};", "crate::"),
        [vec!["app", "views"], vec!["app", "views", "Outcome"]]
    );
    assert_eq!(
        paths_after("x = super::cache::ViewTable::new(", "super::"),
        [["cache", "ViewTable", "new"]]
    );
    assert_eq!(module_of("app/views/mod.rs"), ["app", "views"]);
    assert_eq!(
        module_of("app/derive/settle.rs"),
        ["app", "derive", "settle"]
    );
}
