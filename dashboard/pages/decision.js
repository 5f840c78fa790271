// One decision in full; a pending one can be approved or denied from here.
import { api } from '../api.js';
import { details, fill, h, money, pageHeading, timeLeft, TIME_RAN_OUT, when } from '../dom.js';
import { approvalActions, approvalsSummary } from './approval-actions.js';

export async function render(view) {
  const [id] = view.params;
  const d = await api('GET', `/decisions/${encodeURIComponent(id)}`);
  if (!view.alive()) return;
  const body = h('div');
  view.main.append(pageHeading(`Decision ${d.decision_id}`), body, h('p', {}, h('a', { href: '#/approvals' }, 'Back to the approvals queue')));
  show(d);

  // The controls that had the focus are gone: move it to the new status, which says the outcome.
  function resolved(next) {
    show(next);
    document.getElementById('decision-status')?.focus();
  }

  function show(d) {
    fill(body,
      h('p', { class: `status status-${d.status}`, id: 'decision-status', tabindex: '-1' }, `Status: ${d.status}`, overCaptureBadge(d)),
      details([
        ['Decision', d.decision],
        ['Status', d.status],
        ['Amount', money(d.amount, d.currency)],
        ['Vendor', d.vendor],
        ['Category', d.category],
        ['Agent', h('span', {}, d.agent_id, ' (', h('a', { href: '#/agents' }, 'agents'), ')')],
        ['Policy applied', d.policy_applied ? h('a', { href: `#/policies/${d.policy_applied}` }, d.policy_applied) : '—'],
        ['Reason', d.reason || d.reason_code],
        ['Requested', when(d.timestamp)],
        ['Expires', d.expires_at ? h('span', {}, when(d.expires_at), expiryNote(d)) : '—'],
        ['Approvals', d.expires_at ? approvalsSummary(d) : '—'],
        ['Resolved', when(d.resolved_at)],
        ['Capture', captureText(d)],
        ['Card authorization', d.rail ? h('span', {}, h('code', {}, d.rail.authorization_id), d.increment_of ? h('span', {}, ' (an increase of ', h('a', { href: `#/decisions/${encodeURIComponent(d.increment_of)}` }, d.increment_of), ')') : '') : '—'],
        ['Metadata', Object.keys(d.metadata || {}).length ? h('code', {}, JSON.stringify(d.metadata)) : '—'],
        ['Mode', d.livemode ? 'live' : 'test'],
      ]),
      d.status === 'pending' ? h('section', { 'aria-labelledby': 'resolve-heading' }, h('h2', { id: 'resolve-heading' }, 'Resolve'), approvalActions(d, view, resolved)) : null,
    );
  }
}

/** Time left only matters while the hold waits for a reviewer. */
function expiryNote(d) {
  if (d.status !== 'pending') return d.status === 'expired' ? ' (expired: no reviewer decided in time)' : '';
  const left = timeLeft(d.expires_at);
  return left === TIME_RAN_OUT ? ` (${left})` : ` (${left} left)`;
}

/** The card moved more than was approved: said next to the status, where a reviewer looks first. */
function overCaptureBadge(d) {
  const over = d.capture?.status === 'captured' ? d.capture.over_capture_amount : undefined;
  return over ? h('span', { class: 'badge badge-over-capture' }, `over-captured by ${money(over, d.currency)}`) : null;
}

/** What the rail did with an approval: nothing yet (and until when), captured (and by how much over), voided or expired. */
function captureText(d) {
  const c = d.capture;
  if (!c) return '—';
  if (c.status === 'captured') {
    const over = c.over_capture_amount ? ` (${money(c.over_capture_amount, d.currency)} more than was approved for the card authorization)` : '';
    return h('span', {}, `captured ${money(c.captured_amount, d.currency)}${over} at `, when(c.captured_at));
  }
  if (c.status === 'uncaptured') return c.capture_before ? h('span', {}, 'uncaptured; expires unless captured by ', when(c.capture_before)) : 'uncaptured';
  return c.status;
}
