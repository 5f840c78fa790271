// The queue of held requests. Polls the API and updates the list in place (a note being typed is
// kept), with the time left before each hold expires ticking down.
import { api, listAll } from '../api.js';
import { details, h, money, pageHeading, timeLeft, when } from '../dom.js';
import { approvalActions, approvalsSummary } from './approval-actions.js';

export const POLL_INTERVAL_MS = 4000;
const MAX_POLL_INTERVAL_MS = 60_000;
// Pages are followed up to this many held requests; past it the page says the list is cut off.
export const QUEUE_CAP = 500;
// Unknown agents looked up one by one per refresh at most; the rest on the next one.
const AGENT_LOOKUPS_PER_REFRESH = 10;
const TICK_MS = 1000;

export async function render(view) {
  const count = h('p', { class: 'queue-count' }, 'Loading…');
  const cutOff = h('p', { class: 'hint', hidden: true });
  const list = h('ul', { class: 'queue', 'aria-label': 'Pending approvals' });
  const updated = h('p', { class: 'hint' });
  view.main.append(
    pageHeading('Pending approvals'),
    h('p', {}, 'Held requests wait here for a person. Approving lets the agent charge; denying releases the reservation. Some holds need approvals from several people (each with their own key); one denial is enough. Each hold is denied automatically when its time runs out.'),
    count,
    cutOff,
    list,
    updated,
  );

  // id → name, or null once a lookup failed: every id is asked for at most once per visit.
  const agentNames = new Map();
  let agentListLoaded = false;
  const items = new Map(); // decision_id → {li, left, agent, d}
  // Resolved from this page: a poll answer started before the resolution must not bring them back.
  const resolvedHere = new Set();
  let truncated = false;

  async function lookUpAgents(ids) {
    if (!agentListLoaded) {
      agentListLoaded = true;
      try {
        const page = await api('GET', '/agents', { query: { limit: 100 } });
        for (const a of page.data) agentNames.set(a.id, a.name);
      } catch {
        /* names are a nicety: ids are shown anyway */
      }
    }
    const missing = [...new Set(ids)].filter((id) => !agentNames.has(id)).slice(0, AGENT_LOOKUPS_PER_REFRESH);
    await Promise.all(
      missing.map(async (id) => {
        try {
          agentNames.set(id, (await api('GET', `/agents/${encodeURIComponent(id)}`)).name);
        } catch {
          agentNames.set(id, null);
        }
      }),
    );
  }

  const agentText = (id) => (agentNames.get(id) ? `${agentNames.get(id)} (${id})` : id);

  /** What the approvals row shows, to redraw it only when it changed. */
  const approvalsKey = (d) => `${d.approvals_required}:${(d.approvals || []).map((a) => a.api_key_id + a.at).join(',')}`;

  function card(d) {
    const left = h('span', { class: 'time-left' }, timeLeft(d.expires_at));
    const agent = h('span', {}, agentText(d.agent_id));
    const approvals = h('div', {}, approvalsSummary(d));
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
        ['Approvals', approvals],
      ]),
      approvalActions(d, view, (next) => {
        // An approval towards a quorum: the hold stays queued for the next reviewer.
        if (next.status === 'pending') return showApprovals(item, next);
        resolvedHere.add(d.decision_id);
        remove(d.decision_id, true);
      }),
    );
    const item = { li, left, agent, approvals, d, shown: approvalsKey(d) };
    return item;
  }

  function showApprovals(item, d) {
    if (item.shown === approvalsKey(d)) return;
    item.shown = approvalsKey(d);
    item.approvals.replaceChildren(approvalsSummary(d));
  }

  /** `resolved`: the person just acted on this card (its disabled controls had let go of the focus). */
  function remove(id, resolved = false) {
    const item = items.get(id);
    if (!item) return;
    // Keep keyboard focus in the list when the focused card goes away: on the next card's first button.
    const hadFocus = item.li.contains(document.activeElement) || (resolved && document.activeElement === document.body);
    const next = item.li.nextElementSibling || item.li.previousElementSibling;
    item.li.remove();
    items.delete(id);
    showCount();
    if (hadFocus) (next?.querySelector('button') || document.getElementById('page-heading'))?.focus();
  }

  function showCount() {
    const n = items.size;
    count.textContent = n === 0 ? 'No requests are waiting for approval.' : `${n}${truncated ? '+' : ''} request${n === 1 && !truncated ? '' : 's'} waiting for approval.`;
    cutOff.hidden = !truncated;
    cutOff.textContent = truncated
      ? `The list is cut off: only the newest ${QUEUE_CAP} are shown, so the oldest holds, the closest to expiring, are missing here. Resolve some, or list them with GET /v1/approvals?status=pending.`
      : '';
  }

  async function refresh() {
    const page = await listAll('/approvals', { query: { status: 'pending' }, cap: QUEUE_CAP });
    if (!view.alive()) return;
    const pending = page.data.filter((d) => !resolvedHere.has(d.decision_id));
    await lookUpAgents(pending.map((d) => d.agent_id));
    if (!view.alive()) return;
    truncated = page.truncated;
    const seen = new Set();
    // Newest first, as the API lists them; new ones go in their place without touching the rest.
    let before = list.firstChild;
    for (const d of pending) {
      // An approve/deny may have finished while this refresh was waiting for agent names.
      if (resolvedHere.has(d.decision_id)) continue;
      seen.add(d.decision_id);
      let item = items.get(d.decision_id);
      if (!item) {
        item = card(d);
        items.set(d.decision_id, item);
        list.insertBefore(item.li, before);
      } else {
        if (item.agent.textContent !== agentText(d.agent_id)) item.agent.textContent = agentText(d.agent_id);
        // Other reviewers may have approved since the last poll.
        showApprovals(item, d);
      }
      before = item.li.nextSibling;
    }
    for (const id of [...items.keys()]) if (!seen.has(id)) remove(id);
    showCount();
    updated.textContent = `Updated ${new Date().toLocaleTimeString()}; refreshes every ${POLL_INTERVAL_MS / 1000} seconds.`;
  }

  // Polling: a chain of timeouts (never two refreshes at once), paused while the tab is hidden,
  // slowed after a 429, and announcing a persisting failure once rather than on every poll.
  let stopped = false;
  let timer;
  let inFlight = false;
  let delay = POLL_INTERVAL_MS;
  let notBefore = 0; // a Retry-After still running
  let failure; // the error shown for the current run of failed polls
  let loaded = false;

  function schedule(ms) {
    clearTimeout(timer);
    if (!stopped && view.alive() && !document.hidden) timer = setTimeout(poll, ms);
  }

  async function poll() {
    if (inFlight || stopped) return;
    inFlight = true;
    try {
      await refresh();
      loaded = true;
      delay = POLL_INTERVAL_MS;
      if (failure) view.clearError(failure);
      failure = undefined;
    } catch (err) {
      if (err?.status === 429) {
        delay = err.retryAfterMs ? Math.min(Math.max(err.retryAfterMs, POLL_INTERVAL_MS), MAX_POLL_INTERVAL_MS) : Math.min(delay * 2, MAX_POLL_INTERVAL_MS);
        notBefore = Date.now() + delay;
      }
      if (!loaded && view.alive()) count.textContent = 'The queue could not be loaded yet; trying again.';
      if (!failure && view.alive()) {
        failure = err;
        view.showError(err);
      }
    } finally {
      inFlight = false;
      schedule(delay);
    }
  }

  function onVisibility() {
    if (document.hidden) clearTimeout(timer);
    else if (!inFlight) schedule(Math.max(0, notBefore - Date.now()));
  }
  document.addEventListener('visibilitychange', onVisibility);

  // The first load goes through the same path: when it fails, polling still starts.
  await poll();
  const tick = setInterval(() => {
    const now = Date.now();
    for (const { left, d } of items.values()) left.textContent = timeLeft(d.expires_at, now);
  }, TICK_MS);
  return () => {
    stopped = true;
    clearTimeout(timer);
    clearInterval(tick);
    document.removeEventListener('visibilitychange', onVisibility);
  };
}
