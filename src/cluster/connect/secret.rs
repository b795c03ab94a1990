//! Credentials kept out of what the operator reads, the trace log and the
//! audit log: a failing kubeconfig `exec` plugin in one line, and secrets
//! redacted from any error text (`--client-secret=…`, `--token …`,
//! `--password`, `Bearer …`, `user:pass@` in a URL).
//!
//! kube's `AuthExecRun` error carries the plugin's whole command line
//! (arguments and environment, `format!("{cmd:?}")`) and its captured
//! stdout and stderr (kube-client 5.0.0, src/client/auth/mod.rs, `auth_exec`):
//! its `Display` prints all of them, and stdout is where the token is. It is
//! never shown as kube formats it; [`exec_failure`] keeps the exit status and
//! one line of the plugin's stderr.

use std::sync::LazyLock;

use kube::client::AuthError;
use regex::Regex;

use crate::sanitize::sanitize;

/// What a redacted secret reads as.
pub const REDACTED: &str = "[redacted]";

/// `--oidc-client-secret=x`, `--token x`, `"--token" "x"`, `--password=x`:
/// a flag (starting a word) whose name holds secret, token, password,
/// credential or api-key, and its value (after `=`, a space or `" "`).
static SECRET_FLAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(^|[\s"'\[(])(--?[a-z0-9_-]*(?:secret|token|password|passwd|credential|api-?key)[a-z0-9_-]*)(=|"?\s*,?\s*"|\s+)[^\s",]+"#,
    )
    .expect("valid regex")
});

/// `Bearer abc…`, `Basic abc…`.
static AUTH_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+").expect("valid regex")
});

/// `scheme://user:pass@host`: the user information of a URL.
static URL_USERINFO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s]+@").expect("valid regex"));

/// `token: abc`, `"token":"abc"`, `password=abc` in a plugin's message.
static SECRET_FIELD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)("?(?:access_?token|id_?token|refresh_?token|token|password|secret)"?\s*[:=]\s*)"?[^\s",}]+"#)
        .expect("valid regex")
});

/// `text` with every secret it shows replaced by [`REDACTED`] (not sanitized).
pub fn redact(text: &str) -> String {
    let t = SECRET_FLAG.replace_all(text, format!("${{1}}${{2}}${{3}}{REDACTED}"));
    let t = AUTH_VALUE.replace_all(&t, format!("${{1}} {REDACTED}"));
    let t = URL_USERINFO.replace_all(&t, format!("${{1}}{REDACTED}@"));
    let t = SECRET_FIELD.replace_all(&t, format!("${{1}}{REDACTED}"));
    t.into_owned()
}

/// `text` redacted and sanitized: what may be shown and logged.
pub fn redact_sanitize(text: &str) -> String {
    sanitize(&redact(text))
}

/// A failing credential plugin in one line: `the credential plugin
/// get-token exited with status 1: <its last stderr line>`, redacted and
/// sanitized; anything of its stdout that shows up in that line is redacted
/// too (a plugin may echo the token it could not finish writing).
pub fn exec_failure(
    cmd_debug: &str,
    status: &std::process::ExitStatus,
    stdout: &[u8],
    stderr: &[u8],
) -> String {
    let program = program_name(cmd_debug);
    let status = match status.code() {
        Some(c) => format!("status {c}"),
        None => format!("{status}"),
    };
    let err = String::from_utf8_lossy(stderr);
    let line = err
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or_default();
    let mut line = redact(line);
    let out = String::from_utf8_lossy(stdout);
    for word in out.split(|c: char| c.is_whitespace() || "\"',:{}[]".contains(c)) {
        // Words long enough to be a credential, not `status` or `true`.
        if word.len() >= 8 && line.contains(word) {
            line = line.replace(word, REDACTED);
        }
    }
    let line = sanitize(&line);
    let what = format!("the credential plugin {program} exited with {status}");
    if line.is_empty() {
        format!("{what} (nothing on its stderr; its output is not shown)")
    } else {
        format!("{what}: {line}")
    }
}

/// The program's file name from kube's `{cmd:?}` (`FOO="…" "/usr/bin/get-token" "--arg"`):
/// the first quoted word that is not an environment assignment.
fn program_name(cmd_debug: &str) -> String {
    let mut rest = cmd_debug;
    while let Some(start) = rest.find('"') {
        let before = &rest[..start];
        let after = &rest[start + 1..];
        let end = quoted_end(after);
        let word = &after[..end];
        rest = after.get(end + 1..).unwrap_or_default();
        if before.trim_end().ends_with('=') {
            continue;
        }
        let name = word.rsplit('/').next().unwrap_or(word);
        return sanitize(&redact(name));
    }
    "?".to_string()
}

/// The index of the closing quote of a Debug-quoted string (escapes skipped).
fn quoted_end(s: &str) -> usize {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return i,
            _ => escaped = false,
        }
    }
    s.len()
}

/// The credential plugin's failure in `err`'s chain, in one line, if that is
/// what `err` is (at start-up or on a token refresh mid-session, where kube
/// wraps it in its service error).
pub fn credential_failure(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(auth) = e.downcast_ref::<AuthError>() {
            return Some(match auth {
                AuthError::AuthExecRun { cmd, out } => {
                    exec_failure(cmd, &out.status, &out.stdout, &out.stderr)
                }
                AuthError::AuthExecStart(io) => {
                    format!("the credential plugin could not be started: {}", redact_sanitize(&io.to_string()))
                }
                AuthError::AuthExecParse(_) => {
                    "the credential plugin's output is not an ExecCredential (its output is not shown)"
                        .to_string()
                }
                other => format!("credentials: {}", redact_sanitize(&other.to_string())),
            });
        }
        if let Some(kube::Error::Auth(auth)) = e.downcast_ref::<kube::Error>() {
            cur = Some(auth);
            continue;
        }
        cur = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_bearer_values_and_url_credentials_are_redacted() {
        let t = redact(
            "exec: \"get-token\" \"--oidc-client-secret=s3cr3t\" \"--token\" \"abc.def\" --password hunter2 \
             Authorization: Bearer eyJhbGciOi.x-y proxy http://alice:pw@proxy:3128 token: t0k3n",
        );
        for secret in [
            "s3cr3t",
            "abc.def",
            "hunter2",
            "eyJhbGciOi",
            "alice",
            "t0k3n",
        ] {
            assert!(!t.contains(secret), "{secret} in {t}");
        }
        assert!(t.contains("--oidc-client-secret=[redacted]"), "{t}");
        assert!(t.contains("Bearer [redacted]"), "{t}");
        assert!(t.contains("http://[redacted]@proxy:3128"), "{t}");
        // What is not a secret stays.
        assert_eq!(
            redact("--namespace=kaas --verbose"),
            "--namespace=kaas --verbose"
        );
    }

    #[test]
    fn the_program_is_the_first_word_after_the_environment() {
        let cmd = r#"KUBERNETES_EXEC_INFO="{\"kind\":\"ExecCredential\"}" "/opt/bin/get-token" "--client-secret=x""#;
        assert_eq!(program_name(cmd), "get-token");
        assert_eq!(program_name(r#""kubelogin" "get-token""#), "kubelogin");
    }
}
