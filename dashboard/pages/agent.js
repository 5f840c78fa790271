// One agent: its settings, the public keys it signs its requests with (RFC 9421, DECISIONS §19)
// and the AP2 mandates issued to it (§20). Admins add a key by pasting its public JWK and revoke
// keys and mandates; reviewers see the lists only.
import { api, listAll } from '../api.js';
import { breakable, busy, details, field, fill, h, pageHeading, table, when } from '../dom.js';
import { budgetUsedWords, mandateWords, usesWords } from '../mandate-words.js';

const LIST_CAP = 500;
const ALG_NAMES = { ed25519: 'Ed25519', 'ecdsa-p256-sha256': 'ECDSA P-256' };

export async function render(view) {
  const [id] = view.params;
  const agent = await api('GET', `/agents/${encodeURIComponent(id)}`);
  if (!view.alive()) return;
  const policy = agent.policy_id ? await api('GET', `/policies/${encodeURIComponent(agent.policy_id)}`).catch(() => undefined) : undefined;
  if (!view.alive()) return;
  const canEdit = view.session.role === 'admin';
  const keysPath = `/agents/${encodeURIComponent(agent.id)}/keys`;
  const listArea = h('div');

  const policyCell = agent.policy_id
    ? [h('a', { href: `#/policies/${agent.policy_id}` }, policy?.name ?? agent.policy_id), policy?.require_signed_requests ? ' (requires signed requests)' : '']
    : '—';

  /** `focusTable`: a Revoke button pressed is gone after the reload; the table takes the focus. */
  async function load(focusTable) {
    let page;
    try {
      page = await listAll(keysPath, { cap: LIST_CAP });
    } catch (err) {
      if (!view.alive()) return;
      fill(listArea, h('p', {}, 'The signing keys could not be loaded.'));
      view.showError(err);
      return;
    }
    if (!view.alive()) return;
    fill(listArea,
      page.truncated ? h('p', { class: 'hint' }, `The list is cut off: only the newest ${LIST_CAP} keys are shown.`) : null,
      table(
        'Signing keys',
        ['Name', 'Thumbprint (keyid)', 'Algorithm', 'Status', 'Directory', 'Last used', 'Created', 'Actions'],
        page.data.map((k) => [
          k.name || '—',
          h('code', {}, breakable(k.thumbprint)),
          ALG_NAMES[k.alg] ?? k.alg,
          h('span', { class: `status status-${k.status}` }, k.status),
          k.directory_url ? breakable(k.directory_url) : '—',
          k.last_used_at ? when(k.last_used_at) : 'never',
          when(k.created_at),
          canEdit && k.status === 'active' ? revokeButton(k) : '—',
        ]),
      ),
    );
    if (focusTable) listArea.querySelector('.table-wrap')?.focus();
  }

  function revokeButton(k) {
    const label = k.name ? `${k.name} (${k.thumbprint.slice(0, 8)}…)` : k.thumbprint;
    return h(
      'button',
      {
        type: 'button',
        class: 'deny',
        'aria-label': `Revoke key ${label}`,
        onclick: (e) =>
          busy(e.currentTarget, async () => {
            if (!window.confirm(`Revoke key ${label}? Requests signed with it will be refused from now on.`)) return;
            view.showError(null);
            try {
              await api('DELETE', `${keysPath}/${encodeURIComponent(k.id)}`);
              view.notify(`Revoked key ${label}.`);
              await load(true);
            } catch (err) {
              view.showError(err);
            }
          }),
      },
      'Revoke',
    );
  }

  const mandatesArea = h('div');

  /** The agent's mandates, newest first; `focusTable` as for the keys. */
  async function loadMandates(focusTable) {
    let page;
    try {
      page = await listAll('/mandates', { query: { agent_id: agent.id }, cap: LIST_CAP });
    } catch (err) {
      if (!view.alive()) return;
      fill(mandatesArea, h('p', {}, 'The mandates could not be loaded.'));
      view.showError(err);
      return;
    }
    if (!view.alive()) return;
    fill(mandatesArea,
      page.truncated ? h('p', { class: 'hint' }, `The list is cut off: only the newest ${LIST_CAP} mandates are shown.`) : null,
      table(
        'Mandates',
        ['Mandate', 'Allows', 'Uses', 'Budget used', 'Status', 'Expires', 'Created', 'Actions'],
        page.data.map((m) => [
          h('code', {}, breakable(m.id)),
          mandateWords(m.open_mandate),
          usesWords(m),
          budgetUsedWords(m),
          h('span', { class: `status status-${m.status}` }, m.status),
          when(m.expires_at),
          when(m.created_at),
          canEdit && m.status === 'active' ? revokeMandateButton(m) : '—',
        ]),
      ),
    );
    if (focusTable) mandatesArea.querySelector('.table-wrap')?.focus();
  }

  function revokeMandateButton(m) {
    return h(
      'button',
      {
        type: 'button',
        class: 'deny',
        'aria-label': `Revoke mandate ${m.id}`,
        onclick: (e) =>
          busy(e.currentTarget, async () => {
            if (!window.confirm(`Revoke mandate ${m.id}? Payments the agent closes under it will be refused from now on; the mandate stays listed.`)) return;
            view.showError(null);
            try {
              await api('POST', `/mandates/${encodeURIComponent(m.id)}/revoke`);
              view.notify(`Revoked mandate ${m.id}.`);
              await loadMandates(true);
            } catch (err) {
              view.showError(err);
            }
          }),
      },
      'Revoke',
    );
  }

  const form = h(
    'form',
    { class: 'stack', novalidate: true },
    field({
      label: 'Public key (JWK)',
      name: 'jwk',
      type: 'textarea',
      required: true,
      hint: 'Paste the public key as JSON: {"kty":"OKP","crv":"Ed25519","x":"…"} or {"kty":"EC","crv":"P-256","x":"…","y":"…"}. Never the private key ("d").',
      attrs: { rows: '4', spellcheck: 'false' },
    }),
    field({ label: 'Name (optional)', name: 'name', attrs: { maxlength: '200' } }),
    field({ label: 'Key directory URL (optional)', name: 'directory_url', type: 'url', hint: 'An https origin whose /.well-known/http-message-signatures-directory lists this key.', attrs: { placeholder: 'https://agents.example' } }),
    h('button', { type: 'submit' }, 'Add key'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    view.showError(null);
    let jwk;
    try {
      jwk = JSON.parse(form.elements.jwk.value);
    } catch {
      view.showError(Object.assign(new Error('The public key is not JSON: paste the JWK object as it is.'), { param: 'jwk' }));
      form.elements.jwk.focus();
      return;
    }
    const name = form.elements.name.value.trim();
    const directory = form.elements.directory_url.value.trim();
    await busy(form.querySelector('button[type=submit]'), async () => {
      try {
        const key = await api('POST', keysPath, { body: { jwk, ...(name ? { name } : {}), ...(directory ? { directory_url: directory } : {}) } });
        form.reset();
        view.notify(`Key added: ${key.thumbprint}.`);
        await load();
      } catch (err) {
        view.showError(err);
      }
    });
  });

  view.main.append(
    pageHeading(`Agent: ${agent.name}`),
    details([
      ['Id', h('code', {}, agent.id)],
      ['Status', h('span', { class: `status status-${agent.status}` }, agent.status)],
      ['Policy', policyCell],
      ['KYC', agent.kyc_status],
      ['Created', when(agent.created_at)],
    ]),
    h(
      'section',
      { 'aria-labelledby': 'keys-heading' },
      h('h2', { id: 'keys-heading' }, 'Signing keys'),
      h('p', { class: 'hint' }, 'Requests this agent signs (HTTP Message Signatures, tag "web-bot-auth") are verified with these public keys; a revoked key never verifies again.'),
      listArea,
    ),
    h(
      'section',
      { 'aria-labelledby': 'add-key-heading' },
      h('h2', { id: 'add-key-heading' }, 'Add a key'),
      canEdit ? form : h('p', {}, 'Only admin keys can add or revoke signing keys.'),
    ),
    h(
      'section',
      { 'aria-labelledby': 'mandates-heading' },
      h('h2', { id: 'mandates-heading' }, 'Mandates'),
      h('p', { class: 'hint' }, 'AP2 payment mandates issued to this agent: what each allows, and how much of it is used. A revoked mandate stays listed; the agent can no longer pay under it.'),
      canEdit ? null : h('p', {}, 'Only admin keys can revoke mandates.'),
      mandatesArea,
    ),
    h('p', {}, h('a', { href: '#/agents' }, 'All agents')),
  );
  await Promise.all([load(), loadMandates()]);
}
