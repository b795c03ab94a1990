//! The Overview's attention queue has a cursor: `j`/`k` move it, Enter
//! opens the item's full text, and the action key shown on an item (`a`,
//! `R`, `x`) acts on the item under it, through the one action path
//! (`app::actions::start`). A key acts only on an item the last frame drew
//! (`FrameReport::attention_shown`).

use crate::app::modal::Modal;
use crate::app::model::Model;
use crate::domain::action::ActionId;
use crate::domain::attention::{AttentionItem, AttentionKind};
use crate::domain::vrouter;

/// A stable id for an item: what it is and what it is about. The cursor
/// follows it while the queue changes around it.
pub fn item_id(item: &AttentionItem) -> String {
    format!(
        "{:?}/{}/{:?}/{}/{}",
        item.kind, item.subject, item.key.kind, item.key.namespace, item.key.name
    )
}

/// The index of the item under the cursor: the item with the remembered id,
/// else the first; `None` when the queue is empty.
pub fn selected_index(items: &[AttentionItem], selected: Option<&str>) -> Option<usize> {
    if items.is_empty() {
        return None;
    }
    Some(
        selected
            .and_then(|id| items.iter().position(|i| item_id(i) == id))
            .unwrap_or(0),
    )
}

/// The item under the cursor, if the queue has any.
pub fn selected_item(model: &Model) -> Option<AttentionItem> {
    let d = &model.derived;
    selected_index(&d.attention, model.attention_selected.as_deref())
        .map(|i| d.attention[i].clone())
}

/// `j`/`k` (and page keys) on the Overview.
pub fn move_cursor(model: &mut Model, delta: isize) {
    let ids: Vec<String> = model.derived.attention.iter().map(item_id).collect();
    let Some(at) = model
        .attention_selected
        .as_ref()
        .and_then(|id| ids.iter().position(|x| x == id))
        .or((!ids.is_empty()).then_some(0))
    else {
        return;
    };
    let next = (at as isize + delta).clamp(0, ids.len() as isize - 1) as usize;
    model.attention_selected = Some(ids[next].clone());
}

/// `g`/`G` on the Overview.
pub fn move_to_end(model: &mut Model, bottom: bool) {
    let ids: Vec<String> = model.derived.attention.iter().map(item_id).collect();
    let pick = if bottom { ids.last() } else { ids.first() };
    if let Some(id) = pick {
        model.attention_selected = Some(id.clone());
    }
}

/// Enter on the Overview: the full text of the item under the cursor.
pub fn open(model: &mut Model) {
    if let Some(item) = on_screen(model).ok().flatten() {
        model.modals.push(Modal::attention_text(item_id(&item)));
    }
}

/// The item under the cursor if the last frame drew it; `Err` with the
/// reason when it is not on screen; `Ok(None)` when the queue is empty.
pub fn on_screen(model: &Model) -> Result<Option<AttentionItem>, String> {
    let Some(item) = selected_item(model) else {
        return Ok(None);
    };
    if model.frame.attention_shown.contains(&item_id(&item)) {
        Ok(Some(item))
    } else {
        Err(format!(
            "the attention item under the cursor ({}) is not on screen: enlarge the terminal or move the cursor (j/k)",
            item.subject
        ))
    }
}

/// The nodes `action` acts on from the item under the cursor: the item's
/// node for acknowledge and set-migration-mode; for restart-vRouter the
/// item's node, else (an item about a DaemonSet) the nodes of that
/// DaemonSet's outdated pods. `Err` says why nothing can be targeted.
pub fn target_nodes(model: &Model, action: ActionId) -> Result<Vec<String>, String> {
    let item = match on_screen(model)? {
        Some(item) => item,
        None => return Err("the attention queue is empty: nothing to act on".into()),
    };
    let offered = item.action;
    // The migration mode can be set on any item about a node; acknowledge
    // and restart only on the items that offer them.
    if action != ActionId::SetMigrationMode && offered != Some(action) {
        return Err(format!(
            "{} does not apply to the item under the cursor ({} {}): move the cursor (j/k) to an item that offers it",
            action.label(),
            item.subject,
            item.kind.label()
        ));
    }
    if let Some(node) = &item.node {
        return Ok(vec![node.clone()]);
    }
    if action == ActionId::RestartVrouter
        && matches!(
            item.kind,
            AttentionKind::VrouterOutdated | AttentionKind::VrouterStillOutdated
        )
    {
        let mut nodes: Vec<String> = vrouter::restart_order(&model.snapshot)
            .into_iter()
            .filter(|p| p.daemonset.as_deref() == Some(item.subject.as_str()))
            .filter_map(|p| p.node)
            .collect();
        nodes.sort();
        nodes.dedup();
        if !nodes.is_empty() {
            return Ok(nodes);
        }
    }
    Err(format!(
        "{} {} is not about a node",
        item.subject,
        item.kind.label()
    ))
}
