// One webhook endpoint and its recent deliveries, each with its attempt count and last outcome.
import { api } from '../api.js';
import { details, h, pageHeading, table, when } from '../dom.js';

export async function render(view) {
  const [id] = view.params;
  const [ep, deliveries] = await Promise.all([
    api('GET', `/webhook-endpoints/${encodeURIComponent(id)}`),
    api('GET', `/webhook-endpoints/${encodeURIComponent(id)}/deliveries`, { query: { limit: 50 } }),
  ]);
  if (!view.alive()) return;
  view.main.append(
    pageHeading(`Webhook endpoint ${ep.url}`),
    details([
      ['Id', h('code', {}, ep.id)],
      ['URL', ep.url],
      ['Events', ep.events.join(', ')],
      ['Description', ep.description],
      ['Enabled', ep.enabled ? 'yes' : 'no'],
      ['Created', when(ep.created_at)],
    ]),
    table(
      'Recent deliveries',
      ['Event', 'Status', 'Attempts', 'Last status code', 'Last error', 'Created', 'Completed'],
      deliveries.data.map((d) => [h('code', {}, d.event_id), d.status, String(d.attempt_count), d.last_status_code === null ? '—' : String(d.last_status_code), d.last_error ?? '—', when(d.created_at), when(d.completed_at)]),
    ),
    h('p', {}, h('a', { href: '#/webhooks' }, 'All webhook endpoints')),
  );
}
