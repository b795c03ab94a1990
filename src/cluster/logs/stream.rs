//! One log stream: reading it line by line into the follower's channel.

use super::lines::read_line_capped;
use super::*;
use crate::cluster::watch::describe_kube_error;

pub(super) async fn recv(conn: &mut Option<Conn>) -> Read {
    match conn {
        Some(c) => c.rx.recv().await.unwrap_or(Read::End(None)),
        None => std::future::pending().await,
    }
}

/// Reads one log stream into `tx` until it ends.
pub(super) async fn read_log(
    api: Api<Pod>,
    pod: String,
    params: LogParams,
    tx: mpsc::Sender<Read>,
    max_bytes: usize,
) {
    let reader = match api.log_stream(&pod, &params).await {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Read::End(Some(describe_kube_error(&e)))).await;
            return;
        }
    };
    if tx.send(Read::Opened).await.is_err() {
        return;
    }
    let mut reader = std::pin::pin!(reader);
    let mut buf = Vec::new();
    loop {
        match read_line_capped(&mut reader, &mut buf, max_bytes).await {
            Ok(true) => {
                if tx.send(Read::Line(std::mem::take(&mut buf))).await.is_err() {
                    return;
                }
            }
            Ok(false) => {
                let _ = tx.send(Read::End(None)).await;
                return;
            }
            Err(e) => {
                let _ = tx.send(Read::End(Some(sanitize(&e.to_string())))).await;
                return;
            }
        }
    }
}
