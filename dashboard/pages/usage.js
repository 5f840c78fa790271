// Usage this month: billable checks, the plan's included ones and overage, with a bar chart of
// daily checks (GET /v1/usage `daily`) and the same numbers as a table.
import { api } from '../api.js';
import { details, field, fill, h, pageHeading, svg, table } from '../dom.js';

export async function render(view) {
  const now = new Date();
  const current = now.toISOString().slice(0, 7);
  const form = h('form', { class: 'filters', 'aria-label': 'Choose a month' }, field({ label: 'Month', name: 'month', type: 'month', value: current, attrs: { max: current } }), h('button', { type: 'submit' }, 'Show'));
  const body = h('div');
  view.main.append(pageHeading('Usage'), form, body);

  async function load(month) {
    const u = await api('GET', '/usage', { query: { month } });
    if (!view.alive()) return;
    fill(body,
      u.livemode ? null : h('p', { class: 'note' }, 'Test-mode checks are free and never counted, so every count here is 0. Sign in with a live key to see billable usage.'),
      details([
        ['Month', u.month],
        ['Plan', u.plan],
        ['Billable checks', u.checks.toLocaleString()],
        ['Included in the plan', u.included === null ? 'unlimited' : u.included.toLocaleString()],
        ['Checks over the included ones', u.overage_checks.toLocaleString()],
        ['Estimated overage', `${u.overage_amount} USD`],
      ]),
      h('h2', { id: 'chart-heading' }, 'Daily checks'),
      chart(u),
      h('details', {}, h('summary', {}, 'Daily checks as a table'), table(`Daily checks, ${u.month}`, ['Day (UTC)', 'Checks'], u.daily.map((d) => [d.date, d.checks.toLocaleString()]))),
    );
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    view.showError(null);
    load(form.elements.month.value || undefined).catch(view.showError);
  });
  await load();
}

const BAR = 10;
const GAP = 4;
const HEIGHT = 120;
const AXIS = 16;

function chart(u) {
  const max = Math.max(1, ...u.daily.map((d) => d.checks));
  const total = u.daily.reduce((s, d) => s + d.checks, 0);
  const busiest = u.daily.reduce((a, d) => (d.checks > a.checks ? d : a), u.daily[0] ?? { date: '—', checks: 0 });
  const width = u.daily.length * (BAR + GAP);
  const label = `Bar chart of daily billable checks in ${u.month}: ${total.toLocaleString()} in all${total ? `, most on ${busiest.date} (${busiest.checks.toLocaleString()})` : ''}. The same numbers are in the table below.`;
  return svg(
    'svg',
    { class: 'chart', viewBox: `0 0 ${width} ${HEIGHT + AXIS}`, role: 'img', 'aria-label': label, preserveAspectRatio: 'xMinYMin meet' },
    svg('title', {}, label),
    svg('line', { x1: 0, y1: HEIGHT, x2: width, y2: HEIGHT, class: 'axis' }),
    u.daily.map((d, i) => {
      const hgt = Math.round((d.checks / max) * (HEIGHT - 4));
      const x = i * (BAR + GAP);
      return [
        svg('rect', { x, y: HEIGHT - hgt, width: BAR, height: Math.max(hgt, 0), class: 'bar' }, svg('title', {}, `${d.date}: ${d.checks} checks`)),
        (i + 1) % 5 === 1 ? svg('text', { x: x + BAR / 2, y: HEIGHT + AXIS - 3, 'text-anchor': 'middle', class: 'tick' }, String(i + 1)) : null,
      ];
    }),
  );
}
