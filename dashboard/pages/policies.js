// The account's policies; each links to its page (view, edit, simulate).
import { api } from '../api.js';
import { add, h, money, pageHeading, table } from '../dom.js';

export async function render(view) {
  const page = await api('GET', '/policies', { query: { limit: 100 } });
  if (!view.alive()) return;
  add(
    view.main,
    pageHeading('Policies'),
    table(
      'Policies',
      ['Name', 'Id', 'Active', 'Monthly budget', 'Single maximum', 'Approval above'],
      page.data.map((p) => [
        h('a', { href: `#/policies/${p.id}` }, p.name),
        h('code', {}, p.id),
        p.active ? 'yes' : 'no',
        money(p.budget_monthly, p.currency),
        money(p.budget_single_max, p.currency),
        p.require_approval_above === null ? 'never' : money(p.require_approval_above, p.currency),
      ]),
    ),
    page.has_more ? h('p', { class: 'hint' }, 'Showing the newest 100 policies.') : null,
  );
}
