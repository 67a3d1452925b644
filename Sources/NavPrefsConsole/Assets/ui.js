// What every console page shares: building elements without HTML strings (no injection, no
// inline script or style), the header with the token control, notices and problem display.
import { token } from './api.js';

/**
 * An element: `h('button', {class: 'x', onclick: f, text: 'Go'}, child, ...)`. Attributes
 * named on* are listeners; `text` sets the text; `dataset` fills data-*; false/null skip.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name === 'text') element.textContent = String(value);
    else if (name === 'class') element.className = value;
    else if (name === 'dataset') Object.assign(element.dataset, value);
    else if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

export function byId(id) {
  return document.getElementById(id);
}

/** A query parameter of the page's URL. */
export function param(name) {
  return new URLSearchParams(location.search).get(name) || '';
}

/** Whether `name` is a valid profile name (the API's own rule). */
export function isProfileName(name) {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name);
}

/** Console page URLs. */
export const links = {
  profile: (profile) => `/console/profile.html?profile=${encodeURIComponent(profile)}`,
  sessions: (profile, session) =>
    `/console/session.html?profile=${encodeURIComponent(profile)}${session ? `&session=${encodeURIComponent(session)}` : ''}`,
};

const PAGES = [
  ['home', '/', 'Home'],
  ['profile', '/console/profile.html', 'Profile'],
  ['session', '/console/session.html', 'Navigation'],
  ['admin', '/console/admin.html', 'Admin'],
  ['api', '/console/api.html', 'API reference'],
];

/**
 * Draws the header into `<header id="chrome">`: the brand, the pages (those about a profile
 * keep the profile shown), and the token control. `active` names this page.
 */
export function mountChrome(active) {
  const chrome = byId('chrome');
  const profile = param('profile');
  const nav = h('nav', { class: 'chrome-nav', 'aria-label': 'Console pages' },
    PAGES.map(([key, href, label]) => {
      const target = profile && (key === 'profile' || key === 'session') ? `${href}?profile=${encodeURIComponent(profile)}` : href;
      return h('a', { href: target, class: key === active ? 'active' : null, 'aria-current': key === active ? 'page' : null, text: label });
    }));
  const tokenArea = h('div', { class: 'token-area', id: 'token-area' });
  fill(chrome, h('div', { class: 'chrome-inner' },
    h('a', { class: 'brand', href: '/' }, h('span', { class: 'brand-mark', 'aria-hidden': 'true' }), h('span', { text: 'NavPrefs' }),
      h('span', { class: 'brand-sub', text: 'console' })),
    nav, tokenArea));
  renderToken();
  window.addEventListener('navprefs:token', renderToken);
  window.addEventListener('navprefs:unauthorized', (event) => openTokenPanel(event.detail));
  recordPolicyViolations();
}

function renderToken() {
  const area = byId('token-area');
  if (!area) return;
  if (token.get()) {
    fill(area,
      h('span', { class: 'token-state', title: 'Kept in this tab only (sessionStorage); closing the tab forgets it.' },
        h('span', { class: 'dot dot-ok' }), `Token ${token.label()}`),
      h('button', { class: 'link-button', type: 'button', text: 'Forget', onclick: () => token.set('') }));
  } else {
    fill(area,
      h('span', { class: 'token-state', title: 'No token given: this works while the server is in its open mode on loopback.' },
        h('span', { class: 'dot' }), 'No token'),
      h('button', { class: 'link-button', type: 'button', text: 'Use a token', onclick: () => openTokenPanel() }));
  }
}

/** Asks for a token (after a 401, or when asked): kept in sessionStorage for this tab only. */
export function openTokenPanel(error) {
  let panel = byId('token-panel');
  if (!panel) {
    panel = h('div', { class: 'token-panel', id: 'token-panel', role: 'dialog', 'aria-labelledby': 'token-panel-title' });
    byId('chrome').after(panel);
  }
  const input = h('input', { type: 'password', id: 'token-input', placeholder: 'npt_…', autocomplete: 'off', spellcheck: 'false', required: true });
  const reason = error
    ? token.get()
      ? 'The server refused this token: it is unknown, revoked or malformed. Give another one.'
      : 'This server needs an access token.'
    : 'Give an access token (admin, or one profile’s).';
  fill(panel, h('form', {
    class: 'token-form',
    onsubmit: (event) => {
      event.preventDefault();
      token.set(input.value);
      panel.remove();
    },
  },
  h('h2', { id: 'token-panel-title', text: 'Access token' }),
  h('p', { text: `${reason} It stays in this tab only (sessionStorage) and goes only to this server.` }),
  h('p', { class: 'token-help', id: 'token-help' },
    'No token yet? Whoever runs the server makes one where its database is: ',
    h('code', { text: 'navprefs tokens create --admin' }), ' (every profile and this console’s admin page) or ',
    h('code', { text: 'navprefs tokens create --profile NAME' }),
    ' (one profile). It is printed once. An admin token can make more on the Admin page.'),
  error && error.problem && error.problem.detail ? h('p', { class: 'problem-detail', text: `${error.status} · ${error.problem.detail}` }) : null,
  h('div', { class: 'row' }, input, h('button', { class: 'button primary', type: 'submit', text: 'Use token' }),
    h('button', { class: 'button', type: 'button', text: 'Cancel', onclick: () => panel.remove() }))));
  input.focus();
}

/** A short message in the corner; `kind` is 'info', 'ok' or 'error'. */
export function toast(message, kind = 'info') {
  let tray = byId('toasts');
  if (!tray) {
    tray = h('div', { id: 'toasts', class: 'toasts', role: 'status', 'aria-live': 'polite' });
    document.body.append(tray);
  }
  const item = h('div', { class: `toast toast-${kind}`, text: message });
  tray.append(item);
  setTimeout(() => item.classList.add('toast-out'), 3600);
  setTimeout(() => item.remove(), 4200);
}

/** An error said plainly: status, title, the server's detail. */
export function problemBox(error, { action } = {}) {
  const status = error && error.status ? `${error.status} · ` : '';
  return h('div', { class: 'problem', role: 'alert' },
    h('strong', { text: `${status}${error.title || 'Error'}` }),
    h('p', { text: (error.problem && error.problem.detail) || error.message || '' }),
    action || null);
}

/** Time as hh:mm:ss. */
export function clock(date = new Date()) {
  return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
}

/** JSON on one line, cut to `limit` characters. */
export function compact(value, limit = 80) {
  const text = JSON.stringify(value);
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** The stream state as a pill: 'connecting', 'live', 'reconnecting', 'failed', 'paused'. */
export function setStreamPill(element, status, error) {
  const labels = {
    connecting: 'Connecting…',
    live: 'Live',
    reconnecting: 'Reconnecting…',
    failed: error ? `Not live: ${error.status || ''} ${error.title}`.trim() : 'Not live',
    paused: 'Paused',
  };
  element.className = `pill pill-${status}`;
  element.textContent = labels[status] || status;
  element.title = status === 'live' ? 'Changes made anywhere show here at once (Server-Sent Events).' : '';
}

/**
 * Counts Content-Security-Policy violations on `document.body.dataset.cspViolations`, so the
 * browser test can check the pages need nothing the policy forbids.
 */
function recordPolicyViolations() {
  document.body.dataset.cspViolations = document.body.dataset.cspViolations || '0';
  document.addEventListener('securitypolicyviolation', (event) => {
    document.body.dataset.cspViolations = String(Number(document.body.dataset.cspViolations) + 1);
    document.body.dataset.cspLast = `${event.violatedDirective} ${event.blockedURI}`;
  });
}
