// Approve / deny with an optional note, for one held decision (the queue and the detail page).
import { api } from '../api.js';
import { add, h, money, when } from '../dom.js';

/** "1 of 2 approvals" and who gave them (name, time, note), for a held decision. */
export function approvalsSummary(d) {
  const given = d.approvals || [];
  const required = d.approvals_required || 1;
  return h(
    'div',
    { class: 'approvals-summary' },
    h('span', { class: 'approvals-count' }, `${given.length} of ${required} approval${required === 1 ? '' : 's'}`),
    given.length
      ? h(
          'ul',
          { class: 'approvers', 'aria-label': 'Approved by' },
          given.map((a) => h('li', {}, h('span', { class: 'approver-name' }, a.name), ', ', when(a.at), a.note ? h('span', { class: 'approver-note' }, ': ', a.note) : null)),
        )
      : null,
  );
}

/**
 * Four eyes in live mode: the key that requested a held spend cannot approve it (the API answers
 * 403); it may deny it, which withdraws the request.
 */
export function isOwnLiveRequest(d, session) {
  return Boolean(session && session.mode === 'live' && d.requested_by && d.requested_by === session.keyId);
}

/**
 * `onResolved(decision)` runs after a 200: the decision is resolved, or (an approval of a quorum not
 * yet complete) still pending with this approval on it. Errors (409, 503 with no workflow engine, …)
 * go to the alert.
 */
export function approvalActions(d, view, onResolved) {
  const noteId = `note-${d.decision_id}`;
  const what = `${money(d.amount, d.currency)} at ${d.vendor}`;
  const note = h('input', { id: noteId, name: 'note', type: 'text', maxlength: '1000', autocomplete: 'off' });
  // One fieldset, disabled as a whole while a call is in flight, so neither button nor the note
  // can start a second resolution of the same decision.
  const group = h('fieldset', { class: 'approval-actions', 'aria-label': `Resolve ${what}` });
  const resolve = (outcome) => async (e) => {
    const btn = e.currentTarget;
    if (group.disabled) return;
    view.showError(null);
    group.disabled = true;
    group.setAttribute('aria-busy', 'true');
    try {
      const text = note.value.trim();
      const resolved = await api('POST', `/approvals/${encodeURIComponent(d.decision_id)}/${outcome}`, { body: text ? { note: text } : {} });
      if (resolved.status === 'pending') {
        // One approval of several: the hold waits for the other reviewers.
        const given = (resolved.approvals || []).length;
        view.notify(`Approval recorded: ${what}, ${given} of ${resolved.approvals_required} approvals.`);
        note.value = '';
        group.disabled = false;
        group.removeAttribute('aria-busy');
      } else {
        view.notify(`${outcome === 'approve' ? 'Approved' : 'Denied'}: ${what}.`);
      }
      onResolved(resolved);
    } catch (err) {
      group.disabled = false;
      group.removeAttribute('aria-busy');
      view.showError(err);
      // Disabling dropped the focus; give it back to the button that was pressed.
      if (btn.isConnected && (!document.activeElement || document.activeElement === document.body)) btn.focus();
    }
  };
  const own = isOwnLiveRequest(d, view.session);
  const whyId = `why-${d.decision_id}`;
  add(
    group,
    h('div', { class: 'field' }, h('label', { for: noteId }, `Note for ${what} (optional)`), note),
    own
      ? h(
          'p',
          { class: 'hint own-request', id: whyId },
          'You requested this spend with the key you are signed in with. In live mode another person must approve it (four eyes), so Approve is not offered; denying it withdraws your request.',
        )
      : null,
    h(
      'div',
      { class: 'buttons' },
      own ? null : h('button', { type: 'button', class: 'approve', onclick: resolve('approve'), 'aria-label': `Approve ${what}` }, 'Approve'),
      h(
        'button',
        { type: 'button', class: 'deny', onclick: resolve('deny'), 'aria-label': own ? `Deny ${what} (withdraw your request)` : `Deny ${what}`, ...(own ? { 'aria-describedby': whyId } : {}) },
        own ? 'Deny (withdraw)' : 'Deny',
      ),
    ),
  );
  return group;
}
