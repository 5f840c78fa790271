import { h, pageHeading } from '../dom.js';

export function render(view) {
  const input = h('input', { id: 'api-key', name: 'api-key', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true, 'aria-describedby': 'api-key-hint' });
  const submit = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { class: 'sign-in', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'api-key' }, 'API key'), input),
    h(
      'p',
      { class: 'hint', id: 'api-key-hint' },
      'Paste an admin or reviewer key (gc_test_… or gc_live_…). It is kept in this browser tab only (session storage) and sent only to this service; closing the tab or signing out forgets it.',
    ),
    submit,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    view.showError(null);
    submit.disabled = true;
    try {
      await view.signInWith(input.value.trim());
      input.value = '';
      view.notify('Signed in.');
      // On to the page that was asked for (a bookmarked #/agents), else the queue.
      view.go(/^#\/[a-z]/.test(location.hash) ? location.hash : '#/approvals');
    } catch (err) {
      view.showError(err);
      input.focus();
    } finally {
      submit.disabled = false;
    }
  });
  view.main.append(pageHeading('Sign in'), form);
  input.focus();
}
