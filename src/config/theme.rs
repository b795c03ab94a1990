//! Colour themes: named styles loaded from TOML (`themes/default.toml` and
//! `themes/mono.toml` are built in). A user theme may set only the styles it
//! changes; the others come from the default theme.
//!
//! Colours never carry meaning alone: every state is also written as a word
//! on screen, so the `mono` theme (for `NO_COLOR` or 16-colour terminals)
//! loses nothing but colour.
//!
//! File format, one table per style:
//! ```toml
//! row_selected = { fg = "black", bg = "#ff8800", modifiers = ["bold"] }
//! ```
//! Colours are ratatui's names (`red`, `lightblue`, `darkgray`, `reset` for
//! the terminal's own colour), `#rrggbb`, or a 0-255 palette index.

use std::fmt;
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

/// A theme file that could not be used.
#[derive(Debug, Clone, PartialEq)]
pub struct ThemeError(pub String);

impl fmt::Display for ThemeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ThemeError {}

/// One style as written in a theme file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct StyleSpec {
    fg: Option<String>,
    bg: Option<String>,
    #[serde(default)]
    modifiers: Vec<String>,
}

const MODIFIERS: [(&str, Modifier); 9] = [
    ("bold", Modifier::BOLD),
    ("dim", Modifier::DIM),
    ("italic", Modifier::ITALIC),
    ("underlined", Modifier::UNDERLINED),
    ("slow_blink", Modifier::SLOW_BLINK),
    ("rapid_blink", Modifier::RAPID_BLINK),
    ("reversed", Modifier::REVERSED),
    ("hidden", Modifier::HIDDEN),
    ("crossed_out", Modifier::CROSSED_OUT),
];

fn parse_color(raw: &str, origin: &str, key: &str) -> Result<Color, ThemeError> {
    Color::from_str(raw.trim()).map_err(|_| {
        ThemeError(format!(
            "theme {origin}: key {key}: {raw:?} is not a colour \
             (use a name such as red or lightblue, reset, #rrggbb, or a number 0-255)"
        ))
    })
}

impl StyleSpec {
    fn to_style(&self, origin: &str, name: &str) -> Result<Style, ThemeError> {
        let mut style = Style::new();
        if let Some(fg) = &self.fg {
            style = style.fg(parse_color(fg, origin, &format!("{name}.fg"))?);
        }
        if let Some(bg) = &self.bg {
            style = style.bg(parse_color(bg, origin, &format!("{name}.bg"))?);
        }
        for m in &self.modifiers {
            let wanted = m.trim().to_ascii_lowercase().replace('-', "_");
            let (_, modifier) = MODIFIERS
                .iter()
                .find(|(n, _)| *n == wanted)
                .ok_or_else(|| {
                    ThemeError(format!(
                        "theme {origin}: key {name}.modifiers: {m:?} is not a modifier (known: {})",
                        MODIFIERS.map(|(n, _)| n).join(", ")
                    ))
                })?;
            style = style.add_modifier(*modifier);
        }
        Ok(style)
    }
}

/// Declares the theme's styles once: the resolved [`Theme`], the file
/// struct, and the list of names.
macro_rules! theme_styles {
    ($( $(#[doc = $doc:expr])* $name:ident ),* $(,)?) => {
        /// The resolved styles the UI draws with.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Theme {
            $( $(#[doc = $doc])* pub $name: Style, )*
        }

        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        struct ThemeFile {
            $( #[serde(default)] $name: Option<StyleSpec>, )*
        }

        /// Every style name a theme file may set.
        pub const STYLE_NAMES: &[&str] = &[$(stringify!($name)),*];

        impl ThemeFile {
            /// The styles this file does not set.
            fn unset(&self) -> Vec<&'static str> {
                let mut out = Vec::new();
                $( if self.$name.is_none() { out.push(stringify!($name)); } )*
                out
            }

            /// Applies the file's styles over `base`.
            fn resolve(&self, mut base: Theme, origin: &str) -> Result<Theme, ThemeError> {
                $(
                    if let Some(spec) = &self.$name {
                        base.$name = spec.to_style(origin, stringify!($name))?;
                    }
                )*
                Ok(base)
            }
        }

        impl Theme {
            /// A theme with every style empty (the terminal's defaults).
            fn blank() -> Theme {
                Theme { $( $name: Style::new(), )* }
            }

            /// Each style of `self` combined with the same style of `other`.
            fn zip_with(&self, other: &Theme, f: impl Fn(Style, Style) -> Style) -> Theme {
                Theme { $( $name: f(self.$name, other.$name), )* }
            }
        }
    };
}

theme_styles! {
    /// The whole screen's background and normal text.
    base,
    /// Borders of panes.
    border,
    /// The border of the pane that has the keys (tables, overlays).
    border_focused,
    /// Pane titles.
    title,
    /// A view's tab in the tab bar.
    tab,
    /// The current view's tab.
    tab_active,
    /// Table header rows.
    header,
    /// The row under the cursor.
    row_selected,
    /// Rows selected with `space` (also marked with `*` in the first column).
    row_marked,
    /// Secondary text: finished, unknown, placeholders.
    muted,
    /// Something healthy or done.
    ok,
    /// Something in progress or to keep an eye on.
    warn,
    /// Something failed.
    error,
    /// Something that waits for a human (attention queue, rows needing action).
    attention,
    /// The current update phase in the Overview.
    phase,
    /// Progress gauges.
    gauge,
    /// The status bar.
    status_bar,
    /// Footer notices by level.
    notice_info,
    notice_warn,
    notice_error,
    /// Overlays and input lines.
    dialog,
    /// Keys in the footer hints and the help overlay.
    key_hint,
    /// Log lines by level.
    log_debug,
    log_info,
    log_warn,
    log_error,
    /// Search matches in the log.
    search_match,
    /// Tab-bar badges.
    dry_run_badge,
    read_only_badge,
    demo_badge,
}

/// The built-in themes, by name.
pub const BUILT_IN: [(&str, &str); 2] = [
    ("default", include_str!("../../themes/default.toml")),
    ("mono", include_str!("../../themes/mono.toml")),
];

impl Theme {
    /// Parses a theme file; styles it does not set come from `base`.
    /// `origin` names the file in errors.
    pub fn parse(text: &str, origin: &str, base: Theme) -> Result<Theme, ThemeError> {
        let file: ThemeFile =
            toml::from_str(text).map_err(|e| ThemeError(format!("theme {origin}: {e}")))?;
        file.resolve(base, origin)
    }

    /// Parses a theme that must set every style (the built-in ones).
    fn parse_complete(text: &str, origin: &str) -> Result<Theme, ThemeError> {
        let file: ThemeFile =
            toml::from_str(text).map_err(|e| ThemeError(format!("theme {origin}: {e}")))?;
        let unset = file.unset();
        if !unset.is_empty() {
            return Err(ThemeError(format!(
                "theme {origin}: missing styles: {}",
                unset.join(", ")
            )));
        }
        file.resolve(Theme::blank(), origin)
    }

    /// The built-in default theme.
    pub fn default_theme() -> Theme {
        Theme::parse_complete(BUILT_IN[0].1, "themes/default.toml")
            .expect("built-in default theme is valid")
    }

    /// Loads a theme by built-in name (`default`, `mono`) or by path. A file
    /// may set only some styles; the rest come from the default theme.
    pub fn load(name_or_path: &str) -> Result<Theme, ThemeError> {
        if let Some((name, text)) = BUILT_IN.iter().find(|(n, _)| *n == name_or_path) {
            return Theme::parse_complete(text, &format!("themes/{name}.toml"));
        }
        let text = std::fs::read_to_string(name_or_path).map_err(|e| {
            ThemeError(format!(
                "theme {name_or_path:?}: not a built-in theme (built in: {}) and not a readable file: {e}",
                BUILT_IN.map(|(n, _)| n).join(", ")
            ))
        })?;
        Theme::parse(&text, name_or_path, Theme::default_theme())
    }
}

/// Whether `NO_COLOR` asks for no colour: set to any non-empty value
/// (<https://no-color.org>).
pub fn no_color_requested(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty())
}

impl Theme {
    /// Loads the theme for this environment: with `NO_COLOR` set, the
    /// built-in default becomes `mono`, and any other theme loses its colours
    /// (a style left without a modifier takes mono's), so every state stays
    /// distinguishable by reverse video, bold, underline or dim alone.
    pub fn load_for(
        name_or_path: &str,
        no_color: Option<&std::ffi::OsStr>,
    ) -> Result<Theme, ThemeError> {
        if !no_color_requested(no_color) {
            return Theme::load(name_or_path);
        }
        let mono = Theme::load("mono")?;
        if name_or_path == "default" {
            return Ok(mono);
        }
        let theme = Theme::load(name_or_path)?;
        Ok(theme.zip_with(&mono, |mine, fallback| {
            let plain = Style::new()
                .add_modifier(mine.add_modifier)
                .remove_modifier(mine.sub_modifier);
            if plain.add_modifier.is_empty() {
                fallback
            } else {
                plain
            }
        }))
    }
}

impl Default for Theme {
    fn default() -> Self {
        Theme::default_theme()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_themes_set_every_style() {
        for (name, _) in BUILT_IN {
            Theme::load(name).unwrap_or_else(|e| panic!("{e}"));
        }
        let t = Theme::default_theme();
        assert_ne!(t.attention, Style::new(), "attention must stand out");
        assert_ne!(t.row_selected, t.base);
    }

    #[test]
    fn no_color_means_modifiers_only() {
        use std::ffi::OsStr;
        assert_eq!(
            Theme::load_for("default", Some(OsStr::new(""))).unwrap(),
            Theme::default_theme(),
            "an empty NO_COLOR is not set"
        );
        let mono = Theme::load("mono").unwrap();
        assert_eq!(
            Theme::load_for("default", Some(OsStr::new("1"))).unwrap(),
            mono
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mine.toml");
        std::fs::write(
            &path,
            "row_selected = { bg = \"blue\" }\nerror = { fg = \"red\", modifiers = [\"italic\"] }\n",
        )
        .unwrap();
        let t = Theme::load_for(path.to_str().unwrap(), Some(OsStr::new("1"))).unwrap();
        assert_eq!(t.row_selected, mono.row_selected, "colour-only: mono's");
        assert_eq!(t.error, Style::new().add_modifier(Modifier::ITALIC));
    }

    #[test]
    fn a_partial_theme_overrides_only_what_it_sets() {
        let t = Theme::parse(
            "error = { fg = \"#ff8800\", modifiers = [\"bold\", \"underlined\"] }\nok = { fg = \"123\" }\n",
            "mine.toml",
            Theme::default_theme(),
        )
        .unwrap();
        assert_eq!(
            t.error,
            Style::new()
                .fg(Color::Rgb(0xff, 0x88, 0))
                .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
        );
        assert_eq!(t.ok, Style::new().fg(Color::Indexed(123)));
        assert_eq!(t.warn, Theme::default_theme().warn);
    }

    #[test]
    fn bad_themes_name_the_file_key_and_problem() {
        let base = Theme::default_theme;
        let e = Theme::parse("error = { fg = \"blu\" }", "mine.toml", base()).unwrap_err();
        assert!(
            e.0.contains("mine.toml") && e.0.contains("error.fg") && e.0.contains("\"blu\""),
            "{e}"
        );
        let e = Theme::parse("eror = { fg = \"red\" }", "mine.toml", base()).unwrap_err();
        assert!(
            e.0.contains("mine.toml") && e.0.contains("eror") && e.0.contains("unknown field"),
            "{e}"
        );
        let e = Theme::parse("ok = { fg = \"red\", colour = 1 }", "m.toml", base()).unwrap_err();
        assert!(e.0.contains("colour"), "{e}");
        let e = Theme::parse("ok = { modifiers = [\"blinky\"] }", "m.toml", base()).unwrap_err();
        assert!(
            e.0.contains("ok.modifiers") && e.0.contains("blinky"),
            "{e}"
        );
        let e = Theme::load("/nonexistent/theme.toml").unwrap_err();
        assert!(e.0.contains("not a readable file"), "{e}");
        let e = Theme::parse_complete("ok = { fg = \"red\" }", "x.toml").unwrap_err();
        assert!(
            e.0.contains("missing styles") && e.0.contains("base"),
            "{e}"
        );
    }

    #[test]
    fn style_names_are_documented_in_the_default_file() {
        for name in STYLE_NAMES {
            assert!(
                BUILT_IN[0].1.contains(&format!("\n{name} ")),
                "{name} missing from themes/default.toml"
            );
        }
    }
}
