// Small DOM helpers. Text always goes in through textContent, never as markup, so nothing the API
// returns (a vendor name, a note) can become script.

/** h('p', {class: 'x', onclick: fn}, 'text', child…) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = value;
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

/** Replaces an element's content; null, undefined and false children are left out. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Appends children; null, undefined and false are left out (Element.append would print them). */
export function add(el, ...children) {
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

const SVG_NS = 'http://www.w3.org/2000/svg';
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  append(el, children);
  return el;
}

/** The page's heading, focused on arrival so a screen reader announces the new page. */
export function pageHeading(text) {
  return h('h1', { tabindex: '-1', id: 'page-heading' }, text);
}

/** A labelled form field: {label, name, type?, value?, required?, hint?, options? (select)}. */
export function field({ label, name, type = 'text', value, required, hint, options, attrs = {} }) {
  const id = `f-${name}-${Math.random().toString(36).slice(2, 7)}`;
  const hintId = hint ? `${id}-hint` : undefined;
  let control;
  if (options) {
    control = h('select', { id, name, required, 'aria-describedby': hintId, ...attrs }, options.map(([v, text]) => h('option', { value: v, selected: String(v) === String(value ?? '') }, text)));
  } else if (type === 'textarea') {
    control = h('textarea', { id, name, required, rows: 3, 'aria-describedby': hintId, ...attrs });
    control.value = value ?? '';
  } else if (type === 'checkbox') {
    control = h('input', { id, name, type, checked: Boolean(value), 'aria-describedby': hintId, ...attrs });
  } else {
    control = h('input', { id, name, type, required, 'aria-describedby': hintId, ...attrs });
    if (value !== undefined && value !== null) control.value = String(value);
  }
  return h('div', { class: `field${type === 'checkbox' ? ' field-checkbox' : ''}` }, h('label', { for: id }, label), control, hint ? h('p', { class: 'hint', id: hintId }, hint) : null);
}

/** Long text (a vendor, a dotted type, a reason) that may break: after dots, hyphens and underscores first, anywhere if it must. */
export function breakable(text) {
  const parts = String(text).split(/(?<=[./_-])/);
  return h('span', { class: 'breakable' }, parts.flatMap((part, i) => (i ? [h('wbr'), part] : [part])));
}

/** A table with column headers; `rows` are arrays of cells (strings or nodes). */
export function table(caption, headers, rows) {
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, headers.map((text) => h('th', { scope: 'col' }, text)))),
      h('tbody', {}, rows.length ? rows.map((cells) => h('tr', {}, cells.map((c) => h('td', {}, c)))) : h('tr', {}, h('td', { colspan: headers.length }, 'Nothing to show.'))),
    ),
  );
}

/** A definition list from [term, value] pairs. */
export function details(pairs) {
  return h('dl', { class: 'details' }, pairs.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value ?? '—')]));
}

const minorDigitsCache = new Map();
/** Digits after the decimal point for a currency (JPY 0, USD 2, KWD 3), from the browser's ISO 4217 data. */
export function minorDigits(currency) {
  if (!minorDigitsCache.has(currency)) {
    let digits = 2;
    try {
      digits = new Intl.NumberFormat(undefined, { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
    } catch {
      /* not a currency code the browser knows: assume cents */
    }
    minorDigitsCache.set(currency, digits);
  }
  return minorDigitsCache.get(currency);
}

/** Minor units to a display amount: 12345 USD → "123.45 USD", 12345 KWD → "12.345 KWD". */
export function money(amount, currency = 'USD') {
  if (amount === null || amount === undefined) return '—';
  const digits = minorDigits(currency);
  const sign = amount < 0 ? '-' : '';
  const abs = Math.abs(amount);
  const unit = 10 ** digits;
  const text = digits ? `${Math.floor(abs / unit)}.${String(abs % unit).padStart(digits, '0')}` : String(abs);
  return `${sign}${text} ${currency}`;
}

export function when(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return h('time', { datetime: iso, title: iso }, d.toLocaleString());
}

/** What a pending hold's time left reads once it has run out (the service denies it shortly after). */
export const TIME_RAN_OUT = 'time ran out; the hold is denied automatically within a minute';

/** "2 h 5 min", "45 s", or TIME_RAN_OUT. */
export function timeLeft(expiresAt, now = Date.now()) {
  if (!expiresAt) return '—';
  let s = Math.floor((new Date(expiresAt).getTime() - now) / 1000);
  if (s <= 0) return TIME_RAN_OUT;
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const hr = Math.floor(s / 3600);
  s -= hr * 3600;
  const min = Math.floor(s / 60);
  s -= min * 60;
  if (d) return `${d} d ${hr} h`;
  if (hr) return `${hr} h ${min} min`;
  if (min) return `${min} min ${s} s`;
  return `${s} s`;
}

export function button(text, onclick, attrs = {}) {
  return h('button', { type: 'button', onclick, ...attrs }, text);
}

/** Runs an action with the button disabled, so a slow call cannot be sent twice. */
export async function busy(btn, action) {
  btn.disabled = true;
  btn.setAttribute('aria-busy', 'true');
  try {
    return await action();
  } finally {
    btn.disabled = false;
    btn.removeAttribute('aria-busy');
  }
}

/** A list of strings from a textarea or input: one per line or comma. */
export function splitList(text) {
  return String(text || '')
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * A button that copies `value` to the clipboard (selecting `input` first, when given, so Ctrl+C
 * works where the clipboard is refused) and says what it did.
 */
export function copyButton(text, value, { input, attrs = {} } = {}) {
  return h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      ...attrs,
      onclick: async (e) => {
        // currentTarget is null once the handler has awaited: keep the button now.
        const btn = e.currentTarget;
        input?.select();
        try {
          await navigator.clipboard.writeText(value);
          btn.textContent = 'Copied';
        } catch {
          btn.textContent = input ? 'Selected: press Ctrl+C to copy' : 'Copy refused by the browser';
        }
      },
    },
    text,
  );
}
