// The queue of held requests. Polls the API and updates the list in place (a note being typed is
// kept), with the time left before each hold expires ticking down.
import { api } from '../api.js';
import { details, h, money, pageHeading, timeLeft, when } from '../dom.js';
import { approvalActions } from './approval-actions.js';

export const POLL_INTERVAL_MS = 4000;
const TICK_MS = 1000;

export async function render(view) {
  const count = h('p', { class: 'queue-count' }, 'Loading…');
  const list = h('ul', { class: 'queue', 'aria-label': 'Pending approvals' });
  const updated = h('p', { class: 'hint' });
  view.main.append(
    pageHeading('Pending approvals'),
    h('p', {}, 'Held requests wait here for a person. Approving lets the agent charge; denying releases the reservation. Each hold is denied automatically when its time runs out.'),
    count,
    list,
    updated,
  );

  const agentNames = new Map();
  const items = new Map(); // decision_id → {li, left, d}

  async function loadAgentNames() {
    try {
      const page = await api('GET', '/agents', { query: { limit: 100 } });
      for (const a of page.data) agentNames.set(a.id, a.name);
    } catch {
      /* names are a nicety: ids are shown anyway */
    }
  }

  function card(d) {
    const left = h('span', { class: 'time-left' }, timeLeft(d.expires_at));
    const agent = agentNames.has(d.agent_id) ? `${agentNames.get(d.agent_id)} (${d.agent_id})` : d.agent_id;
    const li = h(
      'li',
      { class: 'queue-item', dataset: { decisionId: d.decision_id } },
      h('h2', {}, h('a', { href: `#/decisions/${d.decision_id}` }, `${money(d.amount, d.currency)} at ${d.vendor}`)),
      details([
        ['Amount', money(d.amount, d.currency)],
        ['Agent', agent],
        ['Vendor', d.vendor],
        ['Reason', d.reason || d.reason_code],
        ['Requested', when(d.timestamp)],
        ['Time left', left],
      ]),
      approvalActions(d, view, () => remove(d.decision_id)),
    );
    return { li, left, d };
  }

  function remove(id) {
    const item = items.get(id);
    if (!item) return;
    // Keep keyboard focus in the list when the focused card goes away.
    const hadFocus = item.li.contains(document.activeElement);
    item.li.remove();
    items.delete(id);
    showCount();
    if (hadFocus) (list.querySelector('button') || document.getElementById('page-heading'))?.focus();
  }

  function showCount() {
    count.textContent = items.size === 0 ? 'No requests are waiting for approval.' : `${items.size} request${items.size === 1 ? '' : 's'} waiting for approval.`;
  }

  async function refresh() {
    const page = await api('GET', '/approvals', { query: { status: 'pending', limit: 100 } });
    if (!view.alive()) return;
    if (page.data.some((d) => !agentNames.has(d.agent_id))) await loadAgentNames();
    const seen = new Set();
    // Newest first, as the API lists them; new ones go in their place without touching the rest.
    let before = list.firstChild;
    for (const d of page.data) {
      seen.add(d.decision_id);
      let item = items.get(d.decision_id);
      if (!item) {
        item = card(d);
        items.set(d.decision_id, item);
        list.insertBefore(item.li, before);
      }
      before = item.li.nextSibling;
    }
    for (const id of [...items.keys()]) if (!seen.has(id)) remove(id);
    showCount();
    updated.textContent = `Updated ${new Date().toLocaleTimeString()}; refreshes every ${POLL_INTERVAL_MS / 1000} seconds.`;
  }

  await refresh();
  let polling = false;
  const poll = setInterval(async () => {
    if (polling) return;
    polling = true;
    try {
      await refresh();
    } catch (err) {
      if (view.alive()) view.showError(err);
    } finally {
      polling = false;
    }
  }, POLL_INTERVAL_MS);
  const tick = setInterval(() => {
    const now = Date.now();
    for (const { left, d } of items.values()) left.textContent = timeLeft(d.expires_at, now);
  }, TICK_MS);
  return () => {
    clearInterval(poll);
    clearInterval(tick);
  };
}
