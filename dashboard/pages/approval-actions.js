// Approve / deny with an optional note, for one held decision (the queue and the detail page).
import { api } from '../api.js';
import { busy, h, money } from '../dom.js';

/** `onResolved(decision)` runs after a 200; errors (409, 503 with no workflow engine, …) go to the alert. */
export function approvalActions(d, view, onResolved) {
  const noteId = `note-${d.decision_id}`;
  const note = h('input', { id: noteId, name: 'note', type: 'text', maxlength: '1000', autocomplete: 'off' });
  const what = `${money(d.amount, d.currency)} at ${d.vendor}`;
  const resolve = (outcome) => async (e) => {
    view.showError(null);
    await busy(e.currentTarget, async () => {
      try {
        const text = note.value.trim();
        const resolved = await api('POST', `/approvals/${encodeURIComponent(d.decision_id)}/${outcome}`, { body: text ? { note: text } : {} });
        view.notify(`${outcome === 'approve' ? 'Approved' : 'Denied'}: ${what}.`);
        onResolved(resolved);
      } catch (err) {
        view.showError(err);
      }
    });
  };
  return h(
    'div',
    { class: 'approval-actions' },
    h('div', { class: 'field' }, h('label', { for: noteId }, 'Note (optional)'), note),
    h(
      'div',
      { class: 'buttons' },
      h('button', { type: 'button', class: 'approve', onclick: resolve('approve'), 'aria-label': `Approve ${what}` }, 'Approve'),
      h('button', { type: 'button', class: 'deny', onclick: resolve('deny'), 'aria-label': `Deny ${what}` }, 'Deny'),
    ),
  );
}
