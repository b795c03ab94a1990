//! An unverified connection is never silent: the confirmation dialog says
//! the request goes over it, and every audit record of the action names it
//! (with the kubeconfig user the operator connected as).

use crossterm::event::{KeyCode, KeyModifiers};
use mosk_console::cluster::connect::Transport;
use mosk_console::cluster::writes::executor::Transports;
use mosk_console::domain::action::run::RunOutcome;

use super::harness::*;

fn render(h: &Harness) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 30)).unwrap();
    let theme = mosk_console::config::theme::Theme::load("mono").unwrap();
    t.draw(|f| mosk_console::ui::dialogs::draw(f, f.area(), &h.model, &theme))
        .unwrap();
    format!("{}", t.backend())
}

/// Sets the migration mode of one compute, confirming at the dialog;
/// returns the dialog as drawn.
async fn set_mode(h: &mut Harness) -> String {
    h.tick_and_settle().await;
    let node = h.computes()[0].clone();
    h.select(&[&node]);
    h.press('m');
    h.press('j');
    h.key(KeyCode::Enter, KeyModifiers::NONE);
    let screen = render(h);
    h.press('y');
    assert_eq!(
        h.run_to_end(false).await,
        RunOutcome::Completed { dry_run: false }
    );
    screen
}

#[tokio::test(start_paused = true)]
async fn the_insecure_badge_is_in_the_dialog_and_the_audit_records_name_the_connection() {
    let mut h = Harness::new(
        quick_world(),
        Options {
            transports: Transports {
                mgmt: Transport::Verified,
                mosk: Transport::TlsNotVerified,
            },
            ..Options::default()
        },
    );
    let screen = set_mode(&mut h).await;
    assert!(
        screen.contains("TLS NOT VERIFIED  insecure-skip-tls-verify: server identity not checked"),
        "{screen}"
    );
    let audit = h.audit();
    assert_eq!(audit.len(), 2, "{audit:#?}");
    for r in &audit {
        assert_eq!(r.connection.as_deref(), Some("tls-not-verified"), "{r:?}");
        assert_eq!(
            r.kubeconfig_user.as_deref(),
            Some("kubeconfig-user"),
            "{r:?}"
        );
    }
    let text = std::fs::read_to_string(&h.audit_path).unwrap();
    assert!(
        text.contains(r#""connection":"tls-not-verified""#),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_verified_connection_adds_no_badge_and_no_field() {
    let mut h = Harness::new(quick_world(), Options::default());
    let screen = set_mode(&mut h).await;
    assert!(
        !screen.contains("NOT VERIFIED") && !screen.contains("http"),
        "{screen}"
    );
    let text = std::fs::read_to_string(&h.audit_path).unwrap();
    assert!(!text.contains("\"connection\""), "{text}");
    assert!(
        text.contains(r#""kubeconfig_user":"kubeconfig-user""#),
        "{text}"
    );
}
