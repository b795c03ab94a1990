//! Connecting: what the operator reads when a kubeconfig or a server is wrong,
//! and which contexts are picked by default.

use std::path::{Path, PathBuf};

use mosk_console::cluster::{ConnectError, Target, connect};
use mosk_console::domain::objects::ClusterId;

/// Writes a kubeconfig with one context per `(name, server)`, the first being current.
fn write_kubeconfig(dir: &Path, file: &str, contexts: &[(&str, &str)]) -> PathBuf {
    let mut yaml = String::from("apiVersion: v1\nkind: Config\n");
    if let Some((first, _)) = contexts.first() {
        yaml.push_str(&format!("current-context: {first}\n"));
    }
    yaml.push_str("clusters:\n");
    for (name, server) in contexts {
        yaml.push_str(&format!(
            "- name: {name}\n  cluster:\n    server: {server}\n"
        ));
    }
    yaml.push_str("users:\n");
    for (name, _) in contexts {
        yaml.push_str(&format!(
            "- name: {name}-user\n  user:\n    token: t-{name}\n"
        ));
    }
    yaml.push_str("contexts:\n");
    for (name, _) in contexts {
        yaml.push_str(&format!(
            "- name: {name}\n  context:\n    cluster: {name}\n    user: {name}-user\n"
        ));
    }
    let path = dir.join(file);
    std::fs::write(&path, yaml).unwrap();
    path
}

/// A local URL nothing listens on.
fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

#[tokio::test]
async fn a_missing_kubeconfig_names_the_file_and_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-such-kubeconfig");
    let err = connect(&Target {
        kubeconfig: Some(path.clone()),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert_eq!(err, ConnectError::MissingFile { path: path.clone() });
    let text = err.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(
        text.contains("does not exist") && text.contains("--kubeconfig"),
        "{text}"
    );
}

#[tokio::test]
async fn a_missing_mosk_kubeconfig_is_reported_too() {
    let dir = tempfile::tempdir().unwrap();
    let kc = write_kubeconfig(dir.path(), "kc", &[("sim-mgmt", "http://127.0.0.1:1")]);
    let missing = dir.path().join("mosk-kubeconfig");
    let err = connect(&Target {
        kubeconfig: Some(kc),
        mosk_kubeconfig: Some(missing.clone()),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert_eq!(err, ConnectError::MissingFile { path: missing });
}

#[tokio::test]
async fn an_unknown_context_lists_the_available_ones() {
    let dir = tempfile::tempdir().unwrap();
    let kc = write_kubeconfig(
        dir.path(),
        "kc",
        &[
            ("sim-mgmt", "http://127.0.0.1:1"),
            ("sim-mosk", "http://127.0.0.1:1"),
        ],
    );
    let err = connect(&Target {
        kubeconfig: Some(kc),
        mosk_context: Some("prod-mosk".into()),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert!(
        matches!(&err, ConnectError::UnknownContext { cluster: ClusterId::Mosk, context, available, .. }
            if context == "prod-mosk" && available == &["sim-mgmt", "sim-mosk"]),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("\"prod-mosk\"")
            && text.contains("available contexts: sim-mgmt, sim-mosk")
            && text.contains("--mosk-context"),
        "{text}"
    );
}

#[tokio::test]
async fn without_a_mosk_context_the_operator_is_told_how_to_choose() {
    let dir = tempfile::tempdir().unwrap();
    let kc = write_kubeconfig(
        dir.path(),
        "kc",
        &[
            ("mgmt", "http://127.0.0.1:1"),
            ("child", "http://127.0.0.1:1"),
        ],
    );
    let err = connect(&Target {
        kubeconfig: Some(kc),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert!(
        matches!(
            &err,
            ConnectError::NoMoskContext {
                ambiguous: false,
                ..
            }
        ),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("available contexts: mgmt, child") && text.contains("--mosk-context"),
        "{text}"
    );
}

#[tokio::test]
async fn an_unreachable_server_names_the_url_and_what_to_check() {
    let dir = tempfile::tempdir().unwrap();
    let url = closed_port_url();
    let kc = write_kubeconfig(dir.path(), "kc", &[("sim-mgmt", &url), ("sim-mosk", &url)]);
    let err = connect(&Target {
        kubeconfig: Some(kc),
        ..Default::default()
    })
    .await
    .unwrap_err();
    let ConnectError::Unreachable {
        context, server, ..
    } = &err
    else {
        panic!("expected Unreachable, got {err:?}");
    };
    assert_eq!(context, "sim-mgmt");
    assert!(server.starts_with(&url), "{server}");
    let text = err.to_string();
    assert!(
        text.contains("Cannot reach the management cluster at")
            && text.contains(&url)
            && text.contains("VPN, proxy, firewall"),
        "{text}"
    );
    assert!(
        text.to_lowercase().contains("refused"),
        "the cause is shown: {text}"
    );
}

#[tokio::test]
async fn a_kubeconfig_that_is_not_yaml_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kc");
    std::fs::write(&path, "clusters: [\n  - {name: x\n").unwrap();
    let err = connect(&Target {
        kubeconfig: Some(path.clone()),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert!(matches!(err, ConnectError::BadYaml { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains(&path.display().to_string()) && text.contains("not a valid kubeconfig"),
        "{text}"
    );
}
