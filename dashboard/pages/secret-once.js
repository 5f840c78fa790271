// A secret the API returns once (webhook secret, raw API key): shown in this box only, never stored.
import { copyButton, h } from '../dom.js';

export function secretOnce(title, label, value, advice) {
  const id = `secret-${Math.random().toString(36).slice(2, 7)}`;
  const output = h('input', { id, type: 'text', readonly: true, class: 'secret', spellcheck: 'false', autocomplete: 'off' });
  output.value = value;
  return h(
    'section',
    { class: 'secret-once', 'aria-labelledby': `${id}-title` },
    h('h2', { id: `${id}-title`, tabindex: '-1' }, title),
    h('p', {}, h('strong', {}, advice)),
    h('div', { class: 'field' }, h('label', { for: id }, label), output),
    copyButton(`Copy ${label.toLowerCase()}`, value, { input: output }),
  );
}
