// Boot, session and hash router. Each page module exports render(view) and may return a cleanup
// function (e.g. to stop polling) that runs when the person navigates away.
import { api, ApiError, forgetKey, modeOf, storedKey, storeKey, whenUnauthorized } from './api.js';
import { h, pageHeading } from './dom.js';
import * as approvals from './pages/approvals.js';
import * as decision from './pages/decision.js';
import * as agents from './pages/agents.js';
import * as agent from './pages/agent.js';
import * as policies from './pages/policies.js';
import * as policy from './pages/policy.js';
import * as audit from './pages/audit.js';
import * as webhooks from './pages/webhooks.js';
import * as webhook from './pages/webhook.js';
import * as apiKeys from './pages/api-keys.js';
import * as usage from './pages/usage.js';
import * as rails from './pages/rails.js';
import * as signIn from './pages/sign-in.js';

const ROUTES = [
  [/^(?:approvals)?$/, approvals, 'Approvals'],
  [/^decisions\/([\w-]+)$/, decision, 'Decision'],
  [/^agents$/, agents, 'Agents'],
  [/^agents\/([\w-]+)$/, agent, 'Agent'],
  [/^policies$/, policies, 'Policies'],
  [/^policies\/([\w-]+)$/, policy, 'Policy'],
  [/^audit$/, audit, 'Audit log'],
  [/^webhooks$/, webhooks, 'Webhooks'],
  [/^webhooks\/([\w-]+)$/, webhook, 'Webhook endpoint'],
  [/^api-keys$/, apiKeys, 'API keys'],
  [/^usage$/, usage, 'Usage'],
  [/^rails$/, rails, 'Rails'],
];

const $ = (id) => document.getElementById(id);
let session; // {mode, role, prefix, name, keyId} of the key in use
let cleanup;
let generation = 0;

let shownError;
export function showError(err) {
  shownError = err || undefined;
  const alert = $('alert');
  alert.replaceChildren();
  if (!err) return;
  const message = err instanceof ApiError || err instanceof Error ? err.message : String(err);
  alert.append(h('p', {}, h('strong', {}, 'Error: '), message, err.param ? ` (field: ${err.param})` : ''));
  if (err.requestId) alert.append(h('p', { class: 'hint' }, `Request id: ${err.requestId}`));
}

/** Clears the alert only while it still shows `err`, so a later error is never wiped by mistake. */
export function clearError(err) {
  if (err && shownError === err) showError(null);
}

// A notice stays long enough to be read, then goes, so it never describes an earlier page: it
// lasts through the one navigation it may announce ("Signed in." then the queue), not the next.
const NOTICE_MS = 10_000;
let noticeTimer;
let noticeRoute = 0;
export function notify(text) {
  $('notice').textContent = text || '';
  clearTimeout(noticeTimer);
  noticeRoute = generation;
  if (text) noticeTimer = setTimeout(() => ($('notice').textContent = ''), NOTICE_MS);
}

function applySession() {
  const signedIn = Boolean(session);
  document.body.dataset.mode = signedIn ? session.mode : 'none';
  $('test-banner').hidden = !(signedIn && session.mode === 'test');
  $('nav').hidden = !signedIn;
  $('session').hidden = !signedIn;
  const label = $('mode-label');
  label.hidden = !signedIn;
  label.textContent = signedIn ? (session.mode === 'live' ? 'LIVE — real money' : 'TEST MODE') : '';
  $('session-key').textContent = signedIn ? `${session.name} · ${session.role} · ${session.prefix}` : '';
}

/** Checks a key against the API (GET /v1/api-keys/self) and starts a session with it. */
export async function signInWith(key) {
  const mode = modeOf(key);
  if (!mode) throw new Error('That is not an API key: keys begin with gc_test_ or gc_live_.');
  const self = await api('GET', '/api-keys/self', { key });
  if (self.role === 'agent') throw new Error('This is an agent key. The dashboard needs an admin or reviewer key.');
  storeKey(key);
  session = { mode, role: self.role, prefix: self.prefix, name: self.name, keyId: self.id };
  applySession();
}

function signOut(message) {
  forgetKey();
  session = undefined;
  applySession();
  if (location.hash && location.hash !== '#/') location.hash = '#/';
  else route();
  notify(message || 'Signed out.');
}

function match(path) {
  for (const [pattern, page, title] of ROUTES) {
    const m = pattern.exec(path);
    if (m) return { page, title, params: m.slice(1), section: path.split('/')[0] || 'approvals' };
  }
  return undefined;
}

async function route() {
  const mine = ++generation;
  if (noticeRoute < mine - 1) notify('');
  if (cleanup) {
    try {
      cleanup();
    } catch {
      /* a page's cleanup failing must not stop navigation */
    }
    cleanup = undefined;
  }
  showError(null);
  const main = $('main');
  main.replaceChildren();
  let path;
  try {
    path = decodeURIComponent(location.hash.replace(/^#\/?/, ''));
  } catch {
    path = undefined; // a malformed escape (e.g. "#/%") is a page that does not exist
  }
  const found = !session ? { page: signIn, title: 'Sign in', params: [], section: '' } : path === undefined ? undefined : match(path);
  for (const a of document.querySelectorAll('#nav a')) {
    if (found && a.getAttribute('href') === `#/${found.section}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (!found) {
    document.title = 'Not found · Spend authorization dashboard';
    const heading = pageHeading('Page not found');
    main.append(heading, h('p', {}, h('a', { href: '#/approvals' }, 'Go to the approvals queue')));
    // Even on the first load: a mistyped link otherwise leaves a screen reader on a bare page.
    focusNext = false;
    heading.focus();
    return;
  }
  document.title = `${found.title} · Spend authorization dashboard`;
  const view = {
    main,
    params: found.params,
    session,
    showError,
    clearError,
    notify,
    alive: () => mine === generation,
    signInWith,
    go,
  };
  try {
    const result = await found.page.render(view);
    if (mine === generation) cleanup = typeof result === 'function' ? result : undefined;
    else if (typeof result === 'function') result();
  } catch (err) {
    if (mine === generation) showError(err);
  }
  if (mine === generation && focusNext) {
    focusNext = false;
    (document.getElementById('page-heading') || main).focus();
  }
}

function go(hash) {
  focusNext = true;
  if (location.hash === hash) route();
  else location.hash = hash;
}

// Move focus to the new page's heading on navigation, not on the first load.
let focusNext = false;
window.addEventListener('hashchange', () => {
  focusNext = true;
  route();
});

whenUnauthorized((err) => {
  if (session) signOut(`Signed out: the key was refused (${err.message}).`);
});

$('sign-out').addEventListener('click', () => signOut());

async function boot() {
  const key = storedKey();
  let failure;
  if (key) {
    try {
      await signInWith(key);
    } catch (err) {
      forgetKey();
      failure = err;
    }
  }
  applySession();
  await route();
  if (failure) showError(failure);
}

boot();
