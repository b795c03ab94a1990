//! The effects of the console's commands (placeholder until actions land).

use tokio::sync::mpsc::UnboundedSender;

use crate::app::msg::{Command, Msg};
use crate::app::runtime::Effects;
use crate::cluster::Clusters;
use crate::console::ConsoleOptions;

pub struct ConsoleEffects;

impl ConsoleEffects {
    pub fn new(_clusters: &Clusters, _opts: &ConsoleOptions, _tx: UnboundedSender<Msg>) -> Self {
        ConsoleEffects
    }
}

impl Effects for ConsoleEffects {
    fn run(&mut self, _command: Command) {}
}
