// Webhook endpoints: create (the signing secret is shown once, held only on this page), enable /
// disable, and a link to each endpoint's recent deliveries.
import { api, listAll } from '../api.js';
import { busy, field, fill, h, pageHeading, splitList, table, when } from '../dom.js';
import { secretOnce } from './secret-once.js';

const LIST_CAP = 500;

export async function render(view) {
  const listArea = h('div');
  const created = h('div');
  const canEdit = view.session.role === 'admin';
  view.main.append(pageHeading('Webhook endpoints'), created, listArea);

  /** `focusId`: the endpoint whose Enable/Disable button was pressed gets the focus on its new one. */
  async function load(focusId) {
    const page = await listAll('/webhook-endpoints', { cap: LIST_CAP });
    if (!view.alive()) return;
    fill(listArea,
      page.truncated ? h('p', { class: 'hint' }, `The list is cut off: only the newest ${LIST_CAP} endpoints are shown.`) : null,
      table(
        'Webhook endpoints',
        ['URL', 'Events', 'Description', 'Enabled', 'Created', 'Actions'],
        page.data.map((ep) => [
          h('a', { href: `#/webhooks/${ep.id}` }, ep.url),
          ep.events.join(', '),
          ep.description ?? '—',
          ep.enabled ? 'yes' : 'no',
          when(ep.created_at),
          h(
            'span',
            { class: 'buttons' },
            h('a', { href: `#/webhooks/${ep.id}`, 'aria-label': `Recent deliveries to ${ep.url}` }, 'Deliveries'),
            canEdit
              ? h(
                  'button',
                  {
                    type: 'button',
                    class: 'secondary',
                    dataset: { endpointId: ep.id },
                    'aria-label': `${ep.enabled ? 'Disable' : 'Enable'} ${ep.url}`,
                    onclick: (e) =>
                      busy(e.currentTarget, async () => {
                        view.showError(null);
                        try {
                          const changed = await api('PATCH', `/webhook-endpoints/${encodeURIComponent(ep.id)}`, { body: { enabled: !ep.enabled } });
                          view.notify(`${changed.url} is now ${changed.enabled ? 'enabled' : 'disabled'}.`);
                          await load(ep.id);
                        } catch (err) {
                          view.showError(err);
                        }
                      }),
                  },
                  ep.enabled ? 'Disable' : 'Enable',
                )
              : null,
          ),
        ]),
      ),
    );
    if (focusId) (listArea.querySelector(`button[data-endpoint-id="${CSS.escape(focusId)}"]`) || listArea.querySelector('.table-wrap'))?.focus();
  }

  if (canEdit) {
    const form = h(
      'form',
      { class: 'stack' },
      field({ label: 'URL', name: 'url', type: 'url', required: true, hint: 'https is required in live mode.', attrs: { placeholder: 'https://example.com/webhooks/spend' } }),
      field({ label: 'Events', name: 'events', value: '*', required: true, hint: 'Comma separated event names, or * for all (authorize.approved, authorize.denied, authorize.held, agent.frozen, approval.completed, approval.escalated, authorization.captured, authorization.voided, authorization.expired, authorization.adjusted).' }),
      field({ label: 'Description (optional)', name: 'description', attrs: { maxlength: '500' } }),
      h('button', { type: 'submit' }, 'Create endpoint'),
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      view.showError(null);
      await busy(form.querySelector('button[type=submit]'), async () => {
        try {
          const description = form.elements.description.value.trim();
          const ep = await api('POST', '/webhook-endpoints', { body: { url: form.elements.url.value.trim(), events: splitList(form.elements.events.value), ...(description ? { description } : {}) } });
          form.reset();
          fill(created, secretOnce(`Endpoint created: ${ep.url}`, 'Signing secret', ep.secret, 'Copy the signing secret now: it is shown only this once. Your receiver verifies each delivery with it.'));
          created.querySelector('h2')?.focus();
          await load();
        } catch (err) {
          view.showError(err);
        }
      });
    });
    view.main.append(h('section', { 'aria-labelledby': 'create-endpoint' }, h('h2', { id: 'create-endpoint' }, 'Create an endpoint'), form));
  }

  await load();
}
