//! A kubeconfig whose user is an `exec` credential plugin, as OIDC and cloud
//! logins are: the plugin runs without the terminal (no stdin to read, its
//! stderr captured), and when it fails the operator reads its exit status
//! and one line with the secrets redacted, never its command line or output.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use mosk_console::cluster::{ConnectError, Target, connect};
use mosk_console::sim::registry::Registry;

use crate::cluster_support::serve;

/// The secret the plugin is given on its command line.
const CLIENT_SECRET: &str = "hunter2-client-secret";
/// The token it hands out (on stdout).
const TOKEN: &str = "eyJhbGciOiJSUzI1NiJ9.tok3n-payload";

/// A plugin that notes how it was run (`calls`, `exec-info`, `stdin`), prints
/// to stderr, reads its stdin, and fails from its `fail_from`-th call with
/// its secret argument and the token in its message.
fn plugin(dir: &Path, fail_from: u32) -> PathBuf {
    let path = dir.join("get-token");
    let script = format!(
        r#"#!/bin/sh
dir="{dir}"
n=$(cat "$dir/calls" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$dir/calls"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$dir/exec-info"
echo "refreshing the token for $1 ..." >&2
# Non-interactive: stdin is an empty pipe, so this returns at once.
cat > "$dir/stdin"
if [ "$n" -ge {fail_from} ]; then
  echo "warning: first line of noise" >&2
  echo "error: the identity provider refused $1 (Bearer {TOKEN}); token was {TOKEN}" >&2
  echo '{{"status":{{"token":"{TOKEN}"}}}}'
  exit 3
fi
exp=$(date -u -d '+30 seconds' +%Y-%m-%dT%H:%M:%SZ)
echo '{{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{{"token":"{TOKEN}","expirationTimestamp":"'"$exp"'"}}}}'
"#,
        dir = dir.display()
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A kubeconfig with both contexts using the plugin as their user.
fn kubeconfig(dir: &Path, mgmt: &str, mosk: &str, plugin: &Path) -> PathBuf {
    let yaml = format!(
        r#"apiVersion: v1
kind: Config
current-context: sim-mgmt
clusters:
- name: sim-mgmt
  cluster: {{server: "{mgmt}"}}
- name: sim-mosk
  cluster: {{server: "{mosk}"}}
users:
- name: oidc-operator
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: {plugin}
      args: ["--oidc-client-secret={CLIENT_SECRET}"]
      interactiveMode: IfAvailable
contexts:
- name: sim-mgmt
  context: {{cluster: sim-mgmt, user: oidc-operator}}
- name: sim-mosk
  context: {{cluster: sim-mosk, user: oidc-operator}}
"#,
        plugin = plugin.display()
    );
    let path = dir.join("kubeconfig");
    std::fs::write(&path, yaml).unwrap();
    path
}

#[tokio::test]
async fn an_exec_plugin_runs_without_the_terminal_and_its_failure_is_one_redacted_line() {
    let dir = tempfile::tempdir().unwrap();
    let mgmt = serve(Registry::mgmt()).await;
    let mosk = serve(Registry::mosk()).await;
    // The first call (building the client) succeeds, the second (the token
    // refresh before the first request, as its token is about to expire) fails.
    let plugin = plugin(dir.path(), 2);
    let kc = kubeconfig(dir.path(), &mgmt.url, &mosk.url, &plugin);
    let err = connect(&Target {
        kubeconfig: Some(kc),
        ..Default::default()
    })
    .await
    .unwrap_err();

    // Run as kubectl runs plugins without a terminal, whatever the kubeconfig said.
    let info = std::fs::read_to_string(dir.path().join("exec-info")).unwrap();
    assert!(info.contains(r#""interactive":false"#), "{info}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("stdin")).unwrap(),
        ""
    );

    assert!(
        matches!(&err, ConnectError::AuthFailed { code: 0, user, .. } if user == "oidc-operator"),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("the credential plugin get-token exited with status 3"),
        "{text}"
    );
    // One line: the last of its stderr, with the secrets redacted.
    assert!(
        text.contains("error: the identity provider refused --oidc-client-secret=[redacted]"),
        "{text}"
    );
    assert!(!text.contains("first line of noise"), "{text}");
    for secret in [CLIENT_SECRET, TOKEN, "tok3n", "KUBERNETES_EXEC_INFO"] {
        assert!(!text.contains(secret), "{secret} shown: {text}");
    }
    assert!(!text.contains('\n'), "{text}");
}

#[tokio::test]
async fn a_plugin_that_fails_at_once_is_reported_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let mgmt = serve(Registry::mgmt()).await;
    let mosk = serve(Registry::mosk()).await;
    let plugin = plugin(dir.path(), 1);
    let kc = kubeconfig(dir.path(), &mgmt.url, &mosk.url, &plugin);
    let err = connect(&Target {
        kubeconfig: Some(kc),
        ..Default::default()
    })
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("exited with status 3"), "{text}");
    assert!(
        !text.contains(CLIENT_SECRET) && !text.contains(TOKEN),
        "{text}"
    );
}
