// Rails that ask first: connect a Stripe Issuing card program (its signing secret is sent once and
// never shown again) and copy the endpoint URL to give Stripe; delete a connection.
import { api, listAll } from '../api.js';
import { busy, copyButton, field, fill, h, pageHeading, table, when } from '../dom.js';

const LIST_CAP = 500;
const GUIDE = 'docs/rails/stripe-issuing.md';

/** The endpoint URL in a read-only box with its copy button. */
function endpointBox(conn) {
  const id = `endpoint-${conn.id}`;
  const input = h('input', { id, type: 'text', readonly: true, class: 'secret', spellcheck: 'false', autocomplete: 'off', value: conn.endpoint_url });
  input.value = conn.endpoint_url;
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, 'Endpoint URL'),
    input,
    copyButton('Copy endpoint URL', conn.endpoint_url, { input, attrs: { 'aria-label': `Copy the endpoint URL of ${conn.id}` } }),
  );
}

export async function render(view) {
  const created = h('div');
  const listArea = h('div');
  const canEdit = view.session.role === 'admin';
  view.main.append(
    pageHeading('Rails'),
    h('p', { class: 'hint' }, `A card program that asks this service before it approves a card authorization. Give Stripe the endpoint URL as its real-time authorization webhook, and set metadata.agent_id on each card (${GUIDE}).`),
    created,
    listArea,
  );

  async function load(focusTable) {
    const page = await listAll('/rail-connections', { cap: LIST_CAP });
    if (!view.alive()) return;
    fill(
      listArea,
      page.truncated ? h('p', { class: 'hint' }, `The list is cut off: only the newest ${LIST_CAP} connections are shown.`) : null,
      page.data.length === 0
        ? h('p', {}, 'No rail connection yet.')
        : table(
            'Rail connections',
            ['Connection', 'Endpoint URL', 'On timeout', 'Stripe-Version', 'Created', 'Actions'],
            page.data.map((c) => [
              h('code', {}, c.id),
              h('span', { class: 'buttons' }, h('code', {}, c.endpoint_url), copyButton('Copy', c.endpoint_url, { attrs: { 'aria-label': `Copy the endpoint URL of ${c.id}` } })),
              c.on_timeout,
              c.stripe_version,
              when(c.created_at),
              canEdit
                ? h(
                    'button',
                    {
                      type: 'button',
                      class: 'deny',
                      'aria-label': `Delete ${c.id}`,
                      onclick: (e) =>
                        busy(e.currentTarget, async () => {
                          if (!window.confirm(`Delete ${c.id}? Its endpoint refuses every request from now on: Stripe then applies its own timeout behaviour to each swipe.`)) return;
                          view.showError(null);
                          try {
                            await api('DELETE', `/rail-connections/${encodeURIComponent(c.id)}`);
                            view.notify(`Deleted ${c.id}.`);
                            await load(true);
                          } catch (err) {
                            view.showError(err);
                          }
                        }),
                    },
                    'Delete',
                  )
                : '—',
            ]),
          ),
    );
    if (focusTable) listArea.querySelector('.table-wrap')?.focus();
  }

  if (canEdit) {
    const form = h(
      'form',
      { class: 'stack' },
      field({ label: 'Type', name: 'type', options: [['stripe_issuing', 'Stripe Issuing (real-time authorizations)']], value: 'stripe_issuing' }),
      field({ label: 'Signing secret', name: 'signing_secret', type: 'password', required: true, hint: "The whsec_… secret Stripe shows for the webhook endpoint. It is stored sealed and never shown again.", attrs: { autocomplete: 'off', spellcheck: 'false', pattern: 'whsec_[A-Za-z0-9+/=_\\-]{8,250}' } }),
      field({ label: 'When no decision is ready in time', name: 'on_timeout', options: [['decline', 'decline the swipe (fail closed)'], ['approve', 'approve the swipe (not counted against any budget)']], value: 'decline' }),
      field({ label: 'Stripe API version (optional)', name: 'stripe_version', hint: "The endpoint's API version in Stripe; empty: the version this service's Stripe library pins.", attrs: { placeholder: '2026-10-28.endive', pattern: '\\d{4}-\\d{2}-\\d{2}(\\.[a-z]+)?' } }),
      h('p', { class: 'hint' }, `The connection is created in ${view.session.mode} mode and answers only ${view.session.mode}-mode events.`),
      h('button', { type: 'submit' }, 'Connect'),
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      view.showError(null);
      await busy(form.querySelector('button[type=submit]'), async () => {
        try {
          const version = form.elements.stripe_version.value.trim();
          const conn = await api('POST', '/rail-connections', {
            body: { type: form.elements.type.value, signing_secret: form.elements.signing_secret.value.trim(), on_timeout: form.elements.on_timeout.value, ...(version ? { stripe_version: version } : {}) },
          });
          form.reset();
          fill(
            created,
            h(
              'section',
              { class: 'secret-once', 'aria-labelledby': 'rail-created' },
              h('h2', { id: 'rail-created', tabindex: '-1' }, `Connected: ${conn.id}`),
              h('p', {}, h('strong', {}, "Give Stripe this URL as the real-time authorization webhook (and for the issuing events), with the endpoint's API version set to " + conn.stripe_version + '.')),
              endpointBox(conn),
            ),
          );
          created.querySelector('h2')?.focus();
          await load();
        } catch (err) {
          view.showError(err);
        }
      });
    });
    view.main.append(h('section', { 'aria-labelledby': 'create-rail' }, h('h2', { id: 'create-rail' }, 'Connect a card program'), form));
  } else {
    view.main.append(h('p', {}, 'Only admin keys can connect and delete rails.'));
  }
  await load();
}
