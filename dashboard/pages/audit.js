// The audit log with the filters of SPEC §4.4, pages, CSV download of the page shown, and the
// hash chain's verification status.
import { api } from '../api.js';
import { breakable, busy, field, fill, h, money, pageHeading, table, when } from '../dom.js';

const TYPES = [
  'authorization.decision', 'authorization.captured', 'authorization.voided', 'authorization.expired',
  'authorization_token.consumed', 'approval.recorded', 'approval.escalated', 'approval.completed', 'agent.created', 'agent.updated', 'agent.frozen', 'agent.unfrozen',
  'agent.deactivated', 'policy.created', 'policy.updated', 'policy.deleted', 'api_key.created', 'api_key.revoked',
  'webhook_endpoint.created', 'webhook_endpoint.updated', 'webhook_endpoint.deleted', 'webhook_endpoint.secret_rotated',
  'vault.created', 'vault.revoked',
  'authorization.adjusted', 'rail_connection.created', 'rail_connection.deleted',
];
export const AUDIT_PAGE_SIZE = 50;

/** A datetime-local value (the person's local time) as an ISO instant. */
const instant = (value) => (value ? new Date(value).toISOString() : undefined);

export async function render(view) {
  const verification = h('p', { class: 'verification', 'aria-live': 'polite' }, 'Checking the hash chain…');
  const filters = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter audit records' },
    field({ label: 'Agent id', name: 'agent_id', attrs: { placeholder: 'agt_…', autocomplete: 'off' } }),
    field({ label: 'Decision', name: 'decision', options: [['', 'Any'], ['approved', 'Approved'], ['denied', 'Denied'], ['held', 'Held']] }),
    field({ label: 'Type', name: 'type', options: [['', 'Any'], ...TYPES.map((t) => [t, t])] }),
    field({ label: 'From (your local time)', name: 'from', type: 'datetime-local' }),
    field({ label: 'To (your local time, exclusive)', name: 'to', type: 'datetime-local' }),
    h('div', { class: 'buttons' }, h('button', { type: 'submit' }, 'Apply filters'), h('button', { type: 'button', class: 'secondary', onclick: (e) => busy(e.currentTarget, downloadCsv) }, 'Download this page as CSV')),
  );
  const listArea = h('div');
  const pager = h('div', { class: 'pager' });
  view.main.append(pageHeading('Audit log'), verification, filters, listArea, pager);

  let cursors = [undefined];
  // The filters last applied: pages and the CSV follow them, not fields edited since.
  const readFilters = () => {
    const f = filters.elements;
    return { agent_id: f.agent_id.value.trim(), decision: f.decision.value, type: f.type.value, from: instant(f.from.value), to: instant(f.to.value) };
  };
  let applied = readFilters();
  const query = (cursor) => ({ ...applied, limit: AUDIT_PAGE_SIZE, cursor });

  /** `focus` ('previous' or 'next'): the pager button pressed, re-rendered, gets the focus back. */
  async function load(cursor, focus) {
    const page = await api('GET', '/audit-logs', { query: query(cursor) });
    if (!view.alive()) return;
    fill(listArea,
      table(
        `Audit records, page ${cursors.length}`,
        ['Time', 'Type', 'Actor', 'Agent', 'Decision', 'Amount', 'Vendor', 'Reason', 'Sequence'],
        page.data.map((r) => [
          when(r.created_at),
          breakable(r.type),
          h('span', {}, r.actor.type, r.actor.id ? [' ', h('code', {}, r.actor.id)] : null),
          r.agent_id ? h('code', {}, r.agent_id) : '—',
          r.decision_id ? h('a', { href: `#/decisions/${r.decision_id}` }, r.decision || r.decision_id) : '—',
          r.amount === null ? '—' : money(r.amount, r.currency),
          r.vendor ? breakable(r.vendor) : '—',
          r.reason ? breakable(r.reason) : '—',
          r.sequence === null ? 'sealing…' : String(r.sequence),
        ]),
      ),
    );
    fill(pager,
      cursors.length > 1 ? h('button', { type: 'button', class: 'secondary', dataset: { pager: 'previous' }, onclick: () => { cursors.pop(); load(cursors.at(-1), 'previous').catch(view.showError); } }, 'Previous page') : null,
      page.has_more ? h('button', { type: 'button', class: 'secondary', dataset: { pager: 'next' }, onclick: () => { cursors.push(page.next_cursor); load(page.next_cursor, 'next').catch(view.showError); } }, 'Next page') : null,
    );
    if (focus) (pager.querySelector(`[data-pager="${focus}"]`) || listArea.querySelector('.table-wrap'))?.focus();
  }

  async function downloadCsv() {
    view.showError(null);
    try {
      const { text } = await api('GET', '/audit-logs', { query: query(cursors.at(-1)), accept: 'text/csv' });
      const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
      const a = h('a', { href: url, download: `audit-log-${new Date().toISOString().slice(0, 10)}.csv` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      view.notify('Audit CSV downloaded.');
    } catch (err) {
      view.showError(err);
    }
  }

  async function verify() {
    try {
      const v = await api('GET', '/audit-logs/verify');
      if (!view.alive()) return;
      verification.className = `verification ${v.valid ? 'ok' : 'bad'}`;
      verification.textContent = v.valid
        ? `Hash chain verified: ${v.records} record${v.records === 1 ? '' : 's'}, intact.`
        : `Hash chain INVALID: first broken record is sequence ${v.first_invalid_sequence ?? '(the chain head)'}. Investigate before trusting this log.`;
    } catch (err) {
      verification.textContent = 'The hash chain could not be checked.';
      view.showError(err);
    }
  }

  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    view.showError(null);
    cursors = [undefined];
    applied = readFilters();
    load().catch(view.showError);
  });

  await Promise.all([load(), verify()]);
}
