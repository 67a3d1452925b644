// The admin page: the server's state from /metrics as small charts, every profile (GET
// /v1/profiles, a page at a time), and access tokens: make, list, revoke. Everything here needs
// an admin token once tokens exist; a profile token gets 403, which the page says plainly.
import { ApiError, api, paths, token } from './api.js';
import { parseMetrics, sparkline, total } from './metrics.js';
import { byId, clock, fill, h, isProfileName, links, mountChrome, problemBox, toast } from './ui.js';

mountChrome('admin');

const POLL_MS = 2000;
const HISTORY = 60;
const history = [];
let pollTimer = null;
let nextProfile = null;

// ---------- metrics ----------

/** /metrics as text (the API helper reads JSON). */
async function fetchMetrics() {
  const headers = {};
  if (token.get()) headers.Authorization = `Bearer ${token.get()}`;
  const response = await fetch('/metrics', { headers, cache: 'no-store' });
  if (!response.ok) {
    let problem = { title: response.statusText };
    try {
      problem = await response.json();
    } catch {
      // not problem+json: the status says enough
    }
    const error = new ApiError(response.status, problem, '/metrics');
    if (response.status === 401) window.dispatchEvent(new CustomEvent('navprefs:unauthorized', { detail: error }));
    throw error;
  }
  return parseMetrics(await response.text());
}

const CHARTS = [
  { key: 'requests', title: 'Requests / s', unit: '/s', color: '#007aff', digits: 1 },
  { key: 'streams', title: 'Event streams open', unit: '', color: '#34c759', digits: 0 },
  { key: 'events', title: 'Events sent / s', unit: '/s', color: '#ff9500', digits: 1 },
  { key: 'errors', title: 'Store errors', unit: 'total', color: '#ff3b30', digits: 0 },
  { key: 'inflight', title: 'Requests waiting for storage', unit: '', color: '#5856d6', digits: 0 },
  { key: 'memory', title: 'Resident memory', unit: 'MB', color: '#8e8e93', digits: 1, level: true },
];

/** One point per poll; counters become rates against the previous poll. */
function point(samples, previous, seconds) {
  // The page's own polling is left out of the request rate.
  const requests = total(samples, 'navprefs_http_requests_total', (labels) => labels.route !== '/metrics');
  const events = total(samples, 'navprefs_sse_events_sent_total');
  const rate = (now, before) => (previous && seconds > 0 ? Math.max(0, now - before) / seconds : 0);
  return {
    at: Date.now(),
    raw: { requests, events },
    requests: rate(requests, previous ? previous.raw.requests : 0),
    events: rate(events, previous ? previous.raw.events : 0),
    streams: total(samples, 'navprefs_sse_subscribers'),
    errors: total(samples, 'navprefs_store_errors_total', (labels) => labels.kind !== 'closed'),
    inflight: total(samples, 'navprefs_http_requests_in_flight'),
    memory: total(samples, 'process_resident_memory_bytes') / (1024 * 1024),
  };
}

function renderCharts() {
  const latest = history[history.length - 1];
  fill(byId('charts'), CHARTS.map((chart) => h('div', { class: 'chart', dataset: { chart: chart.key } },
    h('div', { class: 'chart-title', text: chart.title }),
    h('div', { class: 'chart-value', id: `chart-${chart.key}` }, latest ? latest[chart.key].toFixed(chart.digits) : '—',
      chart.unit ? h('small', { text: chart.unit }) : null),
    sparkline(history.map((entry) => entry[chart.key]), { color: chart.color, fromZero: !chart.level }))));
  byId('metrics-updated').textContent = latest ? `every ${POLL_MS / 1000} s · ${clock(new Date(latest.at))}` : '';
}

async function poll() {
  clearTimeout(pollTimer);
  try {
    const samples = await fetchMetrics();
    const previous = history[history.length - 1];
    history.push(point(samples, previous, previous ? (Date.now() - previous.at) / 1000 : 0));
    if (history.length > HISTORY) history.shift();
    renderCharts();
    pollTimer = setTimeout(poll, POLL_MS);
  } catch (error) {
    showAccessProblem(error);
  }
}

// ---------- profiles ----------

/** Bytes as a person reads them: 812 B, 14.2 KB, 3.1 MB. */
function storage(bytes) {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} KB`;
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

async function loadProfiles(more = false) {
  const query = new URLSearchParams({ limit: '50' });
  if (more && nextProfile) query.set('after', nextProfile);
  const page = await api('GET', `${paths.profiles}?${query}`);
  const rows = page.profiles.map((profile) => h('tr', { dataset: { profile: profile.name } },
    h('td', {}, h('a', { href: links.profile(profile.name), text: profile.name })),
    h('td', {}, h('a', { href: links.sessions(profile.name), text: 'sessions' })),
    h('td', { text: new Date(profile.createdAt).toLocaleString() }),
    h('td', { class: 'mono', text: String(profile.latestEventId) }),
    h('td', { class: 'mono',
              title: `${profile.storageBytes} bytes: ${profile.storageBytes - profile.eventLogBytes} held against the profile's quota `
                + `(--profile-quota-bytes), ${profile.eventLogBytes} of event log (--event-retention-bytes)`,
              text: storage(profile.storageBytes) })));
  let body = byId('profiles-body');
  if (!more || !body) {
    body = h('tbody', { id: 'profiles-body' });
    fill(byId('profiles'), h('table', { id: 'profiles-table' },
      h('thead', {}, h('tr', {}, h('th', { text: 'Profile' }), h('th'), h('th', { text: 'Created' }), h('th', { text: 'Latest event' }),
        h('th', { text: 'Storage' }))),
      body));
  }
  body.append(...rows);
  nextProfile = page.next;
  byId('profiles-more').hidden = !page.next;
  byId('profiles-count').textContent = `${body.childElementCount}${page.next ? '+' : ''} shown`;
}

byId('profiles-more').addEventListener('click', () => loadProfiles(true).catch(showAccessProblem));

// ---------- tokens ----------

async function loadTokens() {
  const list = await api('GET', '/v1/admin/tokens');
  if (list.tokens.length === 0) {
    fill(byId('tokens'), h('p', { class: 'empty', text: 'No token yet: the server is open to anyone on loopback.' }));
    return;
  }
  fill(byId('tokens'), h('table', { id: 'tokens-table' },
    h('thead', {}, h('tr', {}, h('th', { text: 'Id' }), h('th', { text: 'Scope' }), h('th', { text: 'Label' }), h('th', { text: 'Created' }), h('th'))),
    h('tbody', {}, list.tokens.map((record) => h('tr', { dataset: { id: record.id } },
      h('td', {}, h('code', { text: record.id })),
      h('td', {}, record.admin ? h('span', { class: 'badge badge-registered', text: 'admin' })
        : h('a', { href: links.profile(record.profile), text: record.profile })),
      h('td', { text: record.label || '—' }),
      h('td', { text: new Date(record.createdAt).toLocaleString() }),
      h('td', { class: 'actions' }, revokeButton(record)))))));
}

/** Revokes on a second click, so one slip of the mouse cannot lock a client out. */
function revokeButton(record) {
  const button = h('button', { class: 'button small danger', type: 'button', text: 'Revoke' });
  button.addEventListener('click', async () => {
    if (button.dataset.armed !== 'yes') {
      button.dataset.armed = 'yes';
      button.textContent = 'Sure? Revoke';
      setTimeout(() => {
        button.dataset.armed = '';
        button.textContent = 'Revoke';
      }, 4000);
      return;
    }
    try {
      await api('DELETE', `/v1/admin/tokens/${encodeURIComponent(record.id)}`);
      toast(`Token ${record.id} revoked`, 'ok');
      await loadTokens();
    } catch (error) {
      toast(error.problem.detail || error.message, 'error');
    }
  });
  return button;
}

byId('token-scope').addEventListener('change', () => {
  byId('token-profile').hidden = byId('token-scope').value === 'admin';
});

byId('token-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const admin = byId('token-scope').value === 'admin';
  const profile = byId('token-profile').value.trim();
  if (!admin && !isProfileName(profile)) {
    toast('Name the profile the token is for.', 'error');
    return;
  }
  const body = admin ? { admin: true } : { profile };
  if (byId('token-label').value.trim()) body.label = byId('token-label').value.trim();
  try {
    const made = await api('POST', '/v1/admin/tokens', { body });
    // The first admin token made from an open console is this tab's from now on, or the
    // console would lock itself out of the server it just protected.
    const adopt = admin && !token.get();
    fill(byId('new-token'), h('div', { class: 'new-token', id: 'new-token-box' },
      h('strong', { text: `${admin ? 'Admin token' : `Token for ${profile}`}: copy it now, it is not shown again.` }),
      h('code', { id: 'new-token-value', text: made.token }),
      h('div', { class: 'row' },
        h('button', { class: 'button small', type: 'button', text: 'Copy', onclick: () => copy(made.token) }),
        adopt ? h('span', { text: 'This tab now uses it.' })
          : h('button', { class: 'button small', type: 'button', text: 'Use it in this tab', onclick: () => token.set(made.token) }))));
    byId('token-label').value = '';
    if (adopt) token.set(made.token);
    else await loadTokens();
  } catch (error) {
    toast(error.problem.detail || error.message, 'error');
  }
});

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    toast('Copied', 'ok');
  } catch {
    toast('Select the token and copy it by hand.');
  }
}

// ---------- access ----------

function showAccessProblem(error) {
  clearTimeout(pollTimer);
  if (error.status === 403) {
    fill(byId('page-problem'), problemBox(error, { action: h('p', { text: 'The token in use is a profile token; this page needs an admin token.' }) }));
  } else {
    fill(byId('page-problem'), problemBox(error));
  }
}

async function start() {
  fill(byId('page-problem'));
  history.length = 0;
  try {
    await Promise.all([loadProfiles(), loadTokens()]);
    await poll();
  } catch (error) {
    showAccessProblem(error);
  }
}

start();
window.addEventListener('navprefs:token', start);
