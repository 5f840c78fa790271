// Agents: status, policy, freeze / unfreeze, and registering a new one; each links to its page (keys).
import { api } from '../api.js';
import { busy, field, fill, h, pageHeading, table, when } from '../dom.js';

export async function render(view) {
  const filter = h('form', { class: 'filters', 'aria-label': 'Filter agents' }, field({ label: 'Status', name: 'status', options: [['', 'Any'], ['active', 'Active'], ['frozen', 'Frozen'], ['deactivated', 'Deactivated']] }), h('button', { type: 'submit' }, 'Apply filter'));
  const listArea = h('div');
  const pager = h('div', { class: 'pager' });
  const createArea = h('section', { 'aria-labelledby': 'create-agent' });
  view.main.append(pageHeading('Agents'), filter, listArea, pager, createArea);

  const policies = new Map();
  const policyPage = await api('GET', '/policies', { query: { limit: 100 } });
  for (const p of policyPage.data) policies.set(p.id, p);
  let cursors = [undefined];
  // The status last applied: pages follow it, not a choice made since without applying it.
  let status = filter.elements.status.value;

  /** `focus` ('previous' or 'next'): the pager button pressed, re-rendered, gets the focus back. */
  async function load(cursor, focus) {
    const page = await api('GET', '/agents', { query: { limit: 20, cursor, status } });
    if (!view.alive()) return;
    fill(listArea,
      table(
        'Agents',
        ['Name', 'Id', 'Status', 'Policy', 'KYC', 'Created', 'Actions'],
        page.data.map((a) => row(a)),
      ),
    );
    fill(pager,
      cursors.length > 1 ? h('button', { type: 'button', class: 'secondary', dataset: { pager: 'previous' }, onclick: () => { cursors.pop(); load(cursors.at(-1), 'previous').catch(view.showError); } }, 'Previous page') : null,
      page.has_more ? h('button', { type: 'button', class: 'secondary', dataset: { pager: 'next' }, onclick: () => { cursors.push(page.next_cursor); load(page.next_cursor, 'next').catch(view.showError); } }, 'Next page') : null,
    );
    if (focus) (pager.querySelector(`[data-pager="${focus}"]`) || listArea.querySelector('.table-wrap'))?.focus();
  }

  function row(a) {
    const status = h('span', { class: `status status-${a.status}` }, a.status);
    const actions = h('span');
    const cells = [h('a', { href: `#/agents/${a.id}` }, a.name), h('code', {}, a.id), status, a.policy_id ? h('a', { href: `#/policies/${a.policy_id}` }, policies.get(a.policy_id)?.name ?? a.policy_id) : '—', a.kyc_status, when(a.created_at), actions];
    const update = (agent) => {
      status.textContent = agent.status;
      status.className = `status status-${agent.status}`;
      actions.replaceChildren();
      if (agent.status === 'deactivated') return;
      const freeze = agent.status === 'active';
      actions.append(
        h(
          'button',
          {
            type: 'button',
            class: freeze ? 'deny' : 'secondary',
            'aria-label': `${freeze ? 'Freeze' : 'Unfreeze'} ${agent.name}`,
            onclick: (e) =>
              busy(e.currentTarget, async () => {
                view.showError(null);
                try {
                  const changed = await api('POST', `/agents/${encodeURIComponent(agent.id)}/${freeze ? 'freeze' : 'unfreeze'}`);
                  update(changed);
                  view.notify(`${changed.name} is now ${changed.status}.`);
                  actions.querySelector('button')?.focus();
                } catch (err) {
                  view.showError(err);
                }
              }),
          },
          freeze ? 'Freeze' : 'Unfreeze',
        ),
      );
    };
    update(a);
    return cells;
  }

  filter.addEventListener('submit', (e) => {
    e.preventDefault();
    cursors = [undefined];
    status = filter.elements.status.value;
    load().catch(view.showError);
  });

  const form = h(
    'form',
    { class: 'stack' },
    field({ label: 'Name', name: 'name', required: true, attrs: { maxlength: '200' } }),
    field({ label: 'Policy', name: 'policy_id', required: true, options: [['', 'Choose a policy'], ...[...policies.values()].map((p) => [p.id, `${p.name} (${p.id})`])] }),
    h('button', { type: 'submit' }, 'Create agent'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    view.showError(null);
    const submit = form.querySelector('button[type=submit]');
    await busy(submit, async () => {
      try {
        const agent = await api('POST', '/agents', { body: { name: form.elements.name.value.trim(), policy_id: form.elements.policy_id.value } });
        view.notify(`Agent ${agent.name} created (${agent.id}).`);
        form.reset();
        cursors = [undefined];
        await load();
      } catch (err) {
        view.showError(err);
      }
    });
  });
  createArea.append(h('h2', { id: 'create-agent' }, 'Create an agent'), view.session.role === 'admin' ? form : h('p', {}, 'Only admin keys can create agents.'));

  await load();
}
