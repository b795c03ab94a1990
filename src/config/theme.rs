//! Placeholder until the theme loader lands (the UI branch replaces this file).

#[derive(Debug, Clone, Default)]
pub struct Theme;

impl Theme {
    pub fn load(_name_or_path: &str) -> Result<Theme, String> {
        Ok(Theme)
    }
}
