//! The README lists every key of the default keymap, with the same
//! description the help overlay shows: the two cannot drift apart.

use mosk_console::config::keymap::{KeyAction, Keymap};

#[test]
fn readme_lists_every_key_of_the_default_keymap() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let km = Keymap::default_keymap();
    let mut missing = Vec::new();
    for a in KeyAction::ALL {
        let keys = km
            .keys
            .get(&a)
            .unwrap()
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(" ");
        let row = format!("| {keys} | {} |", a.description());
        if !readme.contains(&row) {
            missing.push(row);
        }
    }
    assert!(
        missing.is_empty(),
        "README.md lacks these key rows:\n{}",
        missing.join("\n")
    );
}

/// Prints the key table for the README (`cargo test --test readme_keys -- --ignored --nocapture`).
#[test]
#[ignore = "a manual helper that prints the README's key table; it checks nothing"]
fn print_key_table() {
    let km = Keymap::default_keymap();
    let mut group = None;
    for a in KeyAction::ALL {
        if group != Some(a.group()) {
            group = Some(a.group());
            println!(
                "\n**{}**\n\n| keys | what it does |\n| --- | --- |",
                a.group().title()
            );
        }
        let keys = km.keys[&a]
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(" ");
        println!("| {keys} | {} |", a.description());
    }
}
