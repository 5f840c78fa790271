// API keys of this mode, each with the key that minted it: create (the raw key is shown once, held
// only on this page) and revoke.
import { api, listAll } from '../api.js';
import { busy, field, fill, h, pageHeading, table, when } from '../dom.js';
import { secretOnce } from './secret-once.js';

const LIST_CAP = 500;

export async function render(view) {
  const created = h('div');
  const listArea = h('div');
  view.main.append(pageHeading('API keys'), created, listArea);
  if (view.session.role !== 'admin') {
    listArea.append(h('p', {}, 'Only admin keys can list, create and revoke API keys.'));
    return;
  }
  const agents = (await listAll('/agents', { query: { status: 'active' }, cap: LIST_CAP })).data;

  /** `focusTable`: a Revoke button pressed is gone after the reload; the table takes the focus. */
  async function load(focusTable) {
    const page = await listAll('/api-keys', { cap: LIST_CAP });
    if (!view.alive()) return;
    const names = new Map(page.data.map((k) => [k.id, k.name]));
    // The key that minted it: a key and the keys it minted count as one person when approving.
    // No minting key: the command line only when the key's record says so; a key from before the
    // upgrade with no such record is `unknown`, not passed off as the command line.
    const mintedBy = (k) =>
      !k.created_by
        ? (k.created_via === 'command_line' ? 'command line' : 'unknown')
        : names.has(k.created_by) ? h('span', { title: k.created_by }, names.get(k.created_by)) : h('code', {}, k.created_by);
    fill(listArea,
      page.truncated ? h('p', { class: 'hint' }, `The list is cut off: only the newest ${LIST_CAP} keys are shown.`) : null,
      table(
        'API keys',
        ['Name', 'Prefix', 'Role', 'Agent', 'Created', 'Created by', 'Last used', 'Revoked', 'Actions'],
        page.data.map((k) => [
          k.name,
          h('code', {}, k.prefix),
          k.role,
          k.agent_id ? h('code', {}, k.agent_id) : '—',
          when(k.created_at),
          mintedBy(k),
          k.last_used_at ? when(k.last_used_at) : 'never',
          k.revoked_at ? when(k.revoked_at) : 'no',
          k.revoked_at || k.prefix === view.session.prefix
            ? k.prefix === view.session.prefix && !k.revoked_at ? 'this key' : '—'
            : h(
                'button',
                {
                  type: 'button',
                  class: 'deny',
                  'aria-label': `Revoke ${k.name} (${k.prefix})`,
                  onclick: (e) =>
                    busy(e.currentTarget, async () => {
                      if (!window.confirm(`Revoke ${k.name} (${k.prefix})? Requests with it will be refused from now on.`)) return;
                      view.showError(null);
                      try {
                        await api('DELETE', `/api-keys/${encodeURIComponent(k.id)}`);
                        view.notify(`Revoked ${k.name}.`);
                        await load(true);
                      } catch (err) {
                        view.showError(err);
                      }
                    }),
                },
                'Revoke',
              ),
        ]),
      ),
    );
    if (focusTable) listArea.querySelector('.table-wrap')?.focus();
  }

  const agentField = field({ label: 'Agent (for agent keys)', name: 'agent_id', options: [['', 'None'], ...agents.map((a) => [a.id, `${a.name} (${a.id})`])] });
  const form = h(
    'form',
    { class: 'stack' },
    field({ label: 'Name', name: 'name', required: true, attrs: { maxlength: '200' } }),
    field({ label: 'Role', name: 'role', options: [['reviewer', 'reviewer: read, freeze, resolve approvals'], ['admin', 'admin: everything'], ['agent', 'agent: authorize for one agent']], value: 'reviewer' }),
    agentField,
    h('p', { class: 'hint' }, `The key is created in ${view.session.mode} mode, like the key you are signed in with.`),
    h('button', { type: 'submit' }, 'Create key'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    view.showError(null);
    await busy(form.querySelector('button[type=submit]'), async () => {
      try {
        const role = form.elements.role.value;
        const body = { name: form.elements.name.value.trim(), role, ...(role === 'agent' ? { agent_id: form.elements.agent_id.value } : {}) };
        const key = await api('POST', '/api-keys', { body });
        form.reset();
        fill(created, secretOnce(`Key created: ${key.name}`, 'API key', key.key, 'Copy the key now: it is shown only this once and cannot be recovered.'));
        created.querySelector('h2')?.focus();
        await load();
      } catch (err) {
        view.showError(err);
      }
    });
  });
  view.main.append(h('section', { 'aria-labelledby': 'create-key' }, h('h2', { id: 'create-key' }, 'Create a key'), form));
  await load();
}
