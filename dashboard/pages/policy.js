// One policy: its settings, an edit form, and a simulation of the edited draft against recorded
// traffic (POST /v1/policies/simulate) before it is saved.
import { api } from '../api.js';
import { add, busy, details, field, fill, h, money, pageHeading, splitList, table, when } from '../dom.js';

// The fields of a policy body (POST /v1/policies): a draft for the simulation is the saved policy
// with the form's changes.
const BODY_FIELDS = [
  'name', 'currency', 'budget_monthly', 'budget_daily', 'budget_single_max', 'vendor_allowlist', 'vendor_denylist',
  'require_approval_above', 'categories_allowed', 'active', 'approval_timeout_seconds', 'velocity_limits',
  'duplicate_window_seconds', 'auto_freeze', 'require_signed_requests',
];
const DAY_MS = 86_400_000;

export async function render(view) {
  const [id] = view.params;
  let policy = await api('GET', `/policies/${encodeURIComponent(id)}`);
  if (!view.alive()) return;
  const heading = pageHeading(`Policy: ${policy.name}`);
  const summary = h('div');
  // Not a live region: the whole result read out would drown the one-line summary sent to the notice.
  const result = h('div', { class: 'simulation' });
  const canEdit = view.session.role === 'admin';

  const form = h(
    'form',
    { class: 'stack', novalidate: true },
    field({ label: 'Name', name: 'name', value: policy.name }),
    field({ label: 'Monthly budget (minor units, e.g. cents)', name: 'budget_monthly', type: 'number', value: policy.budget_monthly, attrs: { min: '0', step: '1' } }),
    field({ label: 'Daily budget (minor units; empty for none)', name: 'budget_daily', type: 'number', value: policy.budget_daily, attrs: { min: '0', step: '1' } }),
    field({ label: 'Single transaction maximum (minor units)', name: 'budget_single_max', type: 'number', value: policy.budget_single_max, attrs: { min: '0', step: '1' } }),
    field({ label: 'Hold for approval above (minor units; empty to never hold on amount)', name: 'require_approval_above', type: 'number', value: policy.require_approval_above, attrs: { min: '0', step: '1' } }),
    field({ label: 'Vendor allowlist', name: 'vendor_allowlist', type: 'textarea', value: policy.vendor_allowlist.join('\n'), hint: 'One vendor per line (or comma separated).' }),
    field({ label: 'Vendor denylist', name: 'vendor_denylist', type: 'textarea', value: policy.vendor_denylist.join('\n'), hint: 'One vendor per line (or comma separated).' }),
    field({ label: 'Allowed categories', name: 'categories_allowed', type: 'textarea', value: policy.categories_allowed.join('\n'), hint: 'Empty allows every category.' }),
    field({ label: 'Approval timeout (seconds)', name: 'approval_timeout_seconds', type: 'number', value: policy.approval_timeout_seconds, attrs: { min: '1', step: '1' } }),
    field({ label: 'Active', name: 'active', type: 'checkbox', value: policy.active }),
    field({
      label: 'Require signed requests',
      name: 'require_signed_requests',
      type: 'checkbox',
      value: policy.require_signed_requests,
      hint: "Agent keys of this policy's agents must sign every request (HTTP Message Signatures with a key on the agent's page); unsigned ones are refused.",
    }),
    field({ label: 'Simulate against recorded requests of the last', name: 'window', options: [['1', '24 hours'], ['7', '7 days'], ['30', '30 days']], value: '7' }),
    h(
      'div',
      { class: 'buttons' },
      h('button', { type: 'button', class: 'secondary', onclick: (e) => busy(e.currentTarget, simulate) }, 'Simulate this draft'),
      canEdit ? h('button', { type: 'submit' }, 'Save changes') : null,
    ),
  );

  const num = (name) => {
    const raw = form.elements[name].value.trim();
    return raw === '' ? null : Number(raw);
  };

  /** Only what the form changed, so fields it does not show are never touched. */
  function changes() {
    const next = {
      name: form.elements.name.value.trim(),
      budget_monthly: num('budget_monthly'),
      budget_daily: num('budget_daily'),
      budget_single_max: num('budget_single_max'),
      require_approval_above: num('require_approval_above'),
      vendor_allowlist: splitList(form.elements.vendor_allowlist.value),
      vendor_denylist: splitList(form.elements.vendor_denylist.value),
      categories_allowed: splitList(form.elements.categories_allowed.value),
      approval_timeout_seconds: num('approval_timeout_seconds'),
      active: form.elements.active.checked,
      require_signed_requests: form.elements.require_signed_requests.checked,
    };
    return Object.fromEntries(Object.entries(next).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(policy[k])));
  }

  async function simulate() {
    view.showError(null);
    const draft = Object.fromEntries(BODY_FIELDS.map((k) => [k, policy[k]]));
    Object.assign(draft, changes());
    const days = Number(form.elements.window.value);
    try {
      const sim = await api('POST', '/policies/simulate', { body: { policy_id: policy.id, policy: draft, from: new Date(Date.now() - days * DAY_MS).toISOString() } });
      if (!view.alive()) return;
      const changed = sim.results.filter((r) => r.actual && (r.actual.decision !== r.would_be.decision || r.actual.reason_code !== r.would_be.reason_code));
      fill(result,
        h('h2', { id: 'simulation-heading' }, 'Simulation'),
        h('p', {}, `Replayed ${sim.results.length} recorded request${sim.results.length === 1 ? '' : 's'} of the last ${form.elements.window.selectedOptions[0].textContent} against the draft (nothing was saved).`),
        details([
          ['Would be approved', String(sim.summary.approved)],
          ['Would be denied', String(sim.summary.denied)],
          ['Would be held', String(sim.summary.held)],
          ['Changed outcomes', String(sim.summary.changed)],
        ]),
        table(
          'Requests whose outcome would change (first 20)',
          ['Decision', 'Amount', 'Vendor', 'Was', 'Would be'],
          changed.slice(0, 20).map((r) => [
            r.decision_id ? h('a', { href: `#/decisions/${r.decision_id}` }, r.decision_id) : '—',
            money(r.request.amount, r.request.currency),
            r.request.vendor,
            `${r.actual.decision}${r.actual.reason_code ? ` (${r.actual.reason_code})` : ''}`,
            `${r.would_be.decision}${r.would_be.reason_code ? ` (${r.would_be.reason_code})` : ''}`,
          ]),
        ),
      );
      const n = sim.results.length;
      view.notify(`Simulation: ${n} request${n === 1 ? '' : 's'} replayed; ${sim.summary.changed} would change (approved ${sim.summary.approved}, denied ${sim.summary.denied}, held ${sim.summary.held}). Nothing was saved.`);
    } catch (err) {
      view.showError(err);
    }
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    view.showError(null);
    const body = changes();
    if (Object.keys(body).length === 0) {
      view.notify('Nothing to save: the form has no changes.');
      return;
    }
    await busy(form.querySelector('button[type=submit]'), async () => {
      try {
        policy = await api('PATCH', `/policies/${encodeURIComponent(policy.id)}`, { body });
        heading.textContent = `Policy: ${policy.name}`;
        showSummary();
        view.notify(`Saved ${policy.name}.`);
      } catch (err) {
        view.showError(err);
      }
    });
  });

  function showSummary() {
    const c = policy.currency;
    fill(summary,
      details([
        ['Id', h('code', {}, policy.id)],
        ['Active', policy.active ? 'yes' : 'no'],
        ['Signed requests', policy.require_signed_requests ? 'required' : 'not required'],
        ['Currency', c],
        ['Monthly budget', money(policy.budget_monthly, c)],
        ['Daily budget', policy.budget_daily === null ? 'none' : money(policy.budget_daily, c)],
        ['Single transaction maximum', money(policy.budget_single_max, c)],
        ['Hold for approval above', policy.require_approval_above === null ? 'never' : money(policy.require_approval_above, c)],
        ['Vendor allowlist', policy.vendor_allowlist.join(', ') || 'none'],
        ['Vendor denylist', policy.vendor_denylist.join(', ') || 'none'],
        ['Allowed categories', policy.categories_allowed.join(', ') || 'all'],
        ['Approval timeout', `${policy.approval_timeout_seconds} s`],
        ['Updated', when(policy.updated_at)],
      ]),
    );
  }
  showSummary();

  add(
    view.main,
    heading,
    h('section', { 'aria-labelledby': 'settings-heading' }, h('h2', { id: 'settings-heading' }, 'Settings'), summary),
    h('section', { 'aria-labelledby': 'edit-heading' }, h('h2', { id: 'edit-heading' }, canEdit ? 'Edit and simulate' : 'Simulate a change'), canEdit ? null : h('p', {}, 'Only admin keys can save changes; you can still simulate a draft.'), form),
    result,
    h('p', {}, h('a', { href: '#/policies' }, 'All policies')),
  );
}
