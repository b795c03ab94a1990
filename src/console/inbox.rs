//! What the runtime reads its messages from.
//!
//! The console has two sources. The operator's keys, the signals and the
//! action executor's reports come over an unbounded channel of [`Msg`]: they
//! are as many as the operator makes, and an action's report must never
//! wait or be dropped (the executor sends it from synchronous code). The
//! cluster layer's events come over its own bounded, merging channel
//! ([`crate::cluster::channel`]), read here directly: were they forwarded
//! into the unbounded channel, a flooding cluster would grow it, and nothing
//! would be left pending to merge.

use std::future::Future;

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::mpsc::error::TryRecvError;

use crate::app::msg::Msg;
use crate::cluster::channel::EventReceiver;

/// A source of messages for the runtime.
pub trait Inbox {
    /// The next message; `None` when the console's own channel is closed.
    /// A cluster event only when `cluster`. Cancel-safe (the runtime
    /// selects on it).
    fn recv(&mut self, cluster: bool) -> impl Future<Output = Option<Msg>> + Send;
    /// The next message if one is waiting; a cluster event only when `cluster`.
    fn try_recv(&mut self, cluster: bool) -> Result<Msg, TryRecvError>;
}

/// The console's own messages alone (tests that feed cluster events as messages).
/// Its cluster events are messages like the others, read at once.
impl Inbox for UnboundedReceiver<Msg> {
    fn recv(&mut self, _cluster: bool) -> impl Future<Output = Option<Msg>> + Send {
        UnboundedReceiver::recv(self)
    }

    fn try_recv(&mut self, _cluster: bool) -> Result<Msg, TryRecvError> {
        UnboundedReceiver::try_recv(self)
    }
}

/// The console's own messages and the cluster layer's events; the
/// operator's first when both wait.
pub struct ConsoleInbox {
    pub msgs: UnboundedReceiver<Msg>,
    pub cluster: EventReceiver,
}

impl Inbox for ConsoleInbox {
    async fn recv(&mut self, cluster: bool) -> Option<Msg> {
        if !cluster {
            return self.msgs.recv().await;
        }
        tokio::select! {
            biased;
            msg = self.msgs.recv() => msg,
            // When the cluster layer has stopped, only the console's own
            // channel is left to end the run.
            Some(ev) = self.cluster.recv() => Some(Msg::Cluster(ev)),
        }
    }

    fn try_recv(&mut self, cluster: bool) -> Result<Msg, TryRecvError> {
        match self.msgs.try_recv() {
            Ok(msg) => Ok(msg),
            Err(TryRecvError::Disconnected) => Err(TryRecvError::Disconnected),
            Err(TryRecvError::Empty) if !cluster => Err(TryRecvError::Empty),
            Err(TryRecvError::Empty) => match self.cluster.try_recv() {
                Ok(ev) => Ok(Msg::Cluster(ev)),
                Err(_) => Err(TryRecvError::Empty),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::events::ClusterEvent;

    #[tokio::test(start_paused = true)]
    async fn keys_come_first_and_the_cluster_channel_ending_ends_nothing() {
        let (tx, msgs) = tokio::sync::mpsc::unbounded_channel();
        let (ctx, cluster) = crate::cluster::channel::channel();
        let mut inbox = ConsoleInbox { msgs, cluster };
        let status = ClusterEvent::LogStatus {
            message: "x".into(),
        };
        ctx.send(status.clone()).unwrap();
        tx.send(Msg::Tick(jiff::Timestamp::UNIX_EPOCH)).unwrap();
        assert!(matches!(inbox.recv(true).await, Some(Msg::Tick(_))));
        // Not read while the runtime does not ask for cluster events.
        assert!(matches!(inbox.try_recv(false), Err(TryRecvError::Empty)));
        assert_eq!(
            inbox.try_recv(true).ok(),
            Some(Msg::Cluster(status.clone()))
        );
        drop(ctx);
        assert!(matches!(inbox.try_recv(true), Err(TryRecvError::Empty)));
        tx.send(Msg::Tick(jiff::Timestamp::UNIX_EPOCH)).unwrap();
        assert!(matches!(inbox.recv(true).await, Some(Msg::Tick(_))));
        drop(tx);
        assert!(inbox.recv(true).await.is_none());
    }
}
