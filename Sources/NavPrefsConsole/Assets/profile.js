// The profile page: the seed apps' counter (000) and font settings (001) as the app shows them,
// a screen that listens for doRefreshNotification, every preference with its source, typed
// reads, who changed it last and its history, the registered defaults and the event tail, all
// kept live by the profile's events.
import { api, paths } from './api.js';
import { icon } from './icons.js';
import { LiveStream } from './live.js';
import { barButton, navBar, phone } from './phone.js';
import {
  byId, clock, compact, fill, h, isProfileName, links, mountChrome, param, problemBox, setStreamPill, toast,
} from './ui.js';
import { VERSION_HINT, authorName, changedBy, timeAgo, versionText } from './words.js';

mountChrome('profile');

const profile = param('profile') || 'default';
const base = paths.profile(profile);
const SLIDER_MIN = -7;  // 10 pt
const SLIDER_MAX = 23;  // 40 pt
// The API takes sliders from -1000 to 1000 (a 1017 pt font): the screens draw sizes within the
// slider's own range, where their layout holds, and the readout says when they stop short.
const DRAWN_MIN = SLIDER_MIN + 17;
const DRAWN_MAX = SLIDER_MAX + 17;
const TAIL_LENGTH = 60;
const WELL_KNOWN = { numIndex: 'the counter', sliderValuekey: 'font settings', fontSizekey: 'font settings' };

const state = {
  counter: { value: 0, stringValue: '0', version: 0, lastChange: null },
  font: { sliderValue: 0, fontSize: 0, effectiveFontSize: 17, version: 0, lastChange: null },
  preferences: { values: {}, version: 0 },
  defaults: { values: {}, version: 0 },
  sources: {},
  /** Each key's last change as the state read says it (`lastChange`: when, and by whom). */
  changes: {},
  exists: true,
  dragging: false,
  startedAt: null,
};

/** Rounds half away from zero, as Swift's `rounded()` (the seed's `round()`) does. */
function roundHalfAway(value) {
  return Math.sign(value) * Math.floor(Math.abs(value) + 0.5);
}

// ---------- the screens ----------

const counterValue = h('div', { class: 'counter-value', id: 'counter-value', 'aria-live': 'polite', text: '0' });
const counterMeta = h('div', { class: 'counter-meta', id: 'counter-meta' });
const counterChanged = h('div', { class: 'counter-meta changed-by', id: 'counter-changed' });
const fontChanged = h('div', { class: 'font-readout changed-by', id: 'font-changed' });
const fontSample = h('p', { class: 'font-sample', id: 'font-sample', text: 'The quick brown fox jumps over the lazy dog.' });
const fontSlider = h('input', {
  type: 'range', class: 'font-slider', id: 'font-slider', min: SLIDER_MIN, max: SLIDER_MAX, step: '1', value: '0',
  'aria-label': 'Font size slider',
});
const fontReadout = h('div', { class: 'font-readout', id: 'font-readout' });
const fontLines = h('div', { class: 'font-lines' },
  // A soft hyphen: at large sizes the notification's name breaks where a reader expects.
  h('p', { text: 'Labels on this screen follow the slider.' }), h('p', { text: 'Every other screen hears doRefresh\u00adNotification.' }));
const listCells = ['Inbox', 'Reading list', 'Settings', 'About this app', 'Help'].map((text) => h('div', { class: 'cell', text }));
const flash = h('div', { class: 'notification-flash', id: 'refresh-flash', role: 'status' });
// The seed apps' screens are pushed from a screen of the app this page does not draw.
const BACK = { title: 'Back', hint: 'Back to the app’s previous screen (not drawn here)' };

function counterButton(systemItem, id, label, operation) {
  return barButton({ systemItem }, { id, label, onclick: () => changeCounter(operation) });
}

function buildScreens() {
  const clear = h('button', { class: 'bar-item', type: 'button', id: 'counter-clear', 'aria-label': 'Clear', title: 'Clear (reset to 0)',
    onclick: () => changeCounter('reset') }, icon('clear'));
  const minus = h('button', { class: 'bar-item', type: 'button', id: 'counter-minus', 'aria-label': 'Minus one', title: 'Minus one',
    onclick: () => changeCounter('decrement') }, icon('minus'));
  const plus = counterButton('add', 'counter-plus', 'Plus one', 'increment');
  fill(byId('screens'),
    phone({
      id: 'counter-phone',
      caption: [h('b', { text: 'Counter' }), ' · seed 000: the bar’s items add one, subtract one and clear ', h('code', { text: 'numIndex' })],
      content: [
        // rightBarButtonItems = [plus, minus, clear]: UIKit draws the first rightmost.
        // No title, as in seed 000: with three items on the right, a title would cover them.
        navBar({ back: BACK, right: [clear, minus, plus], ids: { backTitle: 'counter-back-title' } }),
        h('div', { class: 'screen-body counter-body' }, counterValue, counterMeta, counterChanged),
        h('div', { class: 'home-indicator' }),
      ],
    }),
    phone({
      id: 'font-phone',
      caption: [h('b', { text: 'Font size' }), ' · seed 001: the slider, rounded, + 17; other windows follow'],
      content: [
        navBar({ back: BACK, title: 'Font Size' }),
        h('div', { class: 'screen-body font-body' },
          fontSample,
          h('div', { class: 'font-row' }, h('span', { class: 'small-a', text: 'A' }), fontSlider, h('span', { class: 'large-a', text: 'A' })),
          fontReadout, fontChanged, fontLines),
        h('div', { class: 'home-indicator' }),
      ],
    }),
    phone({
      id: 'list-phone',
      caption: [h('b', { text: 'Another screen' }), ' · observes doRefreshNotification and resizes its labels'],
      content: [
        navBar({ title: 'List', large: true }),
        h('div', { class: 'screen-body list-body' }, listCells, flash),
        h('div', { class: 'home-indicator' }),
      ],
    }));
}

function renderCounter() {
  const text = state.counter.stringValue;
  counterValue.textContent = text;
  counterValue.classList.toggle('long', text.length > 5);
  fill(counterMeta, h('code', { text: `numIndex = "${text}"` }),
    state.counter.version ? ` · changed at ${versionText(state.counter.version)}` : ' · never changed');
  counterMeta.title = VERSION_HINT;
  showChange(counterChanged, state.counter.lastChange);
}

/**
 * "changed by <device or token label>, <time ago>" in `element`, for `lastChange` (nothing when
 * not known). The time is kept in the element, so the ticker below can age it.
 */
function showChange(element, lastChange) {
  element.textContent = changedBy(lastChange);
  element.title = lastChange ? `${lastChange.at}${lastChange.author ? ` · token ${lastChange.author.token}` : ''}` : '';
  if (lastChange) {
    element.dataset.at = lastChange.at;
    element.dataset.who = authorName(lastChange.author);
  } else {
    delete element.dataset.at;
  }
}

// "2 min ago" grows older while the page stays open.
setInterval(() => {
  for (const element of document.querySelectorAll('.changed-by[data-at]')) {
    element.textContent = `changed by ${element.dataset.who}, ${timeAgo(element.dataset.at)}`;
  }
}, 15000);

/**
 * The last change a state, a write's answer or an event carries: the state's `lastChange`, or
 * an event's `author` (committed a moment ago: the state read that follows each event brings the
 * commit's own time), else what was known of this version.
 */
function lastChangeOf(update, current) {
  if (update.lastChange !== undefined) return update.lastChange;
  if (update.author) return { at: new Date().toISOString(), author: update.author };
  return update.version === current.version ? current.lastChange : null;
}

/** Draws the screens' labels at `size` pt, within DRAWN_MIN-DRAWN_MAX; what the readout adds. */
function drawLabels(size) {
  const drawn = Math.min(DRAWN_MAX, Math.max(DRAWN_MIN, size));
  for (const element of [fontSample, ...fontLines.children, ...listCells]) element.style.fontSize = `${drawn}px`;
  return drawn === size ? '' : ` · drawn at ${drawn} pt (the screens stop at ${DRAWN_MIN}-${DRAWN_MAX} pt)`;
}

function renderFont({ moveSlider = true } = {}) {
  const size = state.font.effectiveFontSize;
  const clamped = drawLabels(size);
  if (moveSlider && !state.dragging) {
    const value = state.font.sliderValue;
    fontSlider.min = String(Math.min(SLIDER_MIN, value));
    fontSlider.max = String(Math.max(SLIDER_MAX, value));
    fontSlider.value = String(value);
  }
  fontReadout.textContent = (state.font.fontSize > 0
    ? `slider ${state.font.sliderValue} · ${state.font.sliderValue} + 17 = ${size} pt`
    : `nothing stored · ${size} pt (the default)`) + clamped;
  showChange(fontChanged, state.font.lastChange);
}

// ---------- writes ----------

async function changeCounter(operation) {
  try {
    const change = await api('POST', `${base}/counter/${operation}`);
    applyCounter(change);
    state.exists = true;
    byId('notice').textContent = '';
  } catch (error) {
    toast(error.problem.detail || error.message, 'error');
  }
}

let inFlight = Promise.resolve();

/**
 * Shows where the slider is while it moves; sends it once the gesture ends (`change` when the
 * pointer is released; for keys, once they rest). Sending on every `input` would make one drag several
 * writes, and every write is a `refresh` event that each device answers with
 * doRefreshNotification: one gesture, one notification. A gesture that ends where the stored
 * value already is sends nothing.
 */
function previewSlider() {
  const raw = Number(fontSlider.value);
  const rounded = roundHalfAway(raw);
  const size = rounded + 17;
  const clamped = drawLabels(size > 0 ? size : 17);
  fontReadout.textContent = (raw === rounded
    ? `slider ${rounded} · ${rounded} + 17 = ${size} pt`
    : `slider ${raw} rounds to ${rounded} · ${rounded} + 17 = ${size} pt`) + clamped;
  return { raw, rounded };
}

function sendSlider() {
  state.dragging = false;
  const { raw, rounded } = previewSlider();
  if (rounded === state.font.sliderValue && state.font.fontSize > 0) return;
  inFlight = inFlight.then(async () => {
    try {
      applyFont(await api('PUT', `${base}/font`, { body: { sliderValue: raw } }));
      state.exists = true;
    } catch (error) {
      toast(error.problem.detail || error.message, 'error');
      renderFont();
    }
  });
}

// Keys move the slider a step per press (a `change` each); a held key repeats. Steps that follow
// each other within this pause are one gesture, sent once the keys rest.
const KEY_PAUSE_MS = 300;
let byPointer = false;
let keyTimer = null;

fontSlider.addEventListener('pointerdown', () => {
  byPointer = true;
  state.dragging = true;
});
// A drag that ends where it began fires no `change`: the slider follows the stream again.
window.addEventListener('pointerup', () => { state.dragging = false; });
fontSlider.addEventListener('keydown', () => { byPointer = false; });
fontSlider.addEventListener('input', previewSlider);
fontSlider.addEventListener('change', () => {
  clearTimeout(keyTimer);
  if (byPointer) {
    sendSlider();
    return;
  }
  state.dragging = true;  // until the keys rest, the stream does not move the slider under them
  keyTimer = setTimeout(sendSlider, KEY_PAUSE_MS);
});

// ---------- applying state ----------

function applyCounter(counter) {
  if (counter.version < state.counter.version) return;
  state.counter = { value: counter.value, stringValue: counter.stringValue, version: counter.version,
    lastChange: lastChangeOf(counter, state.counter) };
  renderCounter();
}

function applyFont(font) {
  if (font.version < state.font.version) return;
  state.font = { sliderValue: font.sliderValue, fontSize: font.fontSize, effectiveFontSize: font.effectiveFontSize, version: font.version,
    lastChange: lastChangeOf(font, state.font) };
  renderFont();
}

function showRefreshFlash(id) {
  flash.textContent = `doRefreshNotification · event ${id} · labels now ${state.font.effectiveFontSize} pt`;
  flash.classList.add('shown');
  clearTimeout(showRefreshFlash.timer);
  showRefreshFlash.timer = setTimeout(() => flash.classList.remove('shown'), 1800);
}

// ---------- preferences and defaults ----------

/**
 * Reads the profile's state, one snapshot: every value with its source and last change, the
 * defaults, the counter and the font settings.
 */
async function loadPreferences() {
  const profileState = await api('GET', `${base}/state`);
  const entries = Object.entries(profileState.preferences.values);
  state.preferences = { values: Object.fromEntries(entries.map(([key, entry]) => [key, entry.value])), version: profileState.preferences.version };
  state.sources = Object.fromEntries(entries.map(([key, entry]) => [key, entry.source]));
  state.changes = Object.fromEntries(entries.map(([key, entry]) => [key, entry.lastChange]));
  state.defaults = { values: profileState.defaults.values, version: profileState.defaults.version };
  applyCounter(profileState.counter);
  applyFont(profileState.font);
  renderPreferences();
  renderDefaults();
}

function renderPreferences() {
  byId('preferences-version').textContent = `as of ${versionText(state.preferences.version)}`;
  byId('preferences-version').title = VERSION_HINT;
  const keys = Object.keys(state.preferences.values).sort();
  if (keys.length === 0) {
    fill(byId('preferences'), h('p', { class: 'empty', text: 'No value stored or registered yet.' }));
    return;
  }
  fill(byId('preferences'), h('table', { id: 'preferences-table' },
    h('thead', {}, h('tr', {}, h('th', { text: 'Key' }), h('th', { text: 'Value' }), h('th', { text: 'Source' }), h('th'))),
    h('tbody', {}, keys.map((key) => preferenceRow(key)))));
}

function preferenceRow(key) {
  const value = state.preferences.values[key];
  const source = state.sources[key] || 'stored';
  const row = h('tr', { dataset: { key } });
  const valueCell = h('td', { class: 'value', text: compact(value, 120) });
  const changed = h('span', { class: 'changed-by' });
  showChange(changed, state.changes[key]);
  const typedArea = h('div');
  const historyArea = h('div');
  // The key's history on demand, beside who changed it last.
  const history = h('button', { class: 'link-button history-button', type: 'button', text: 'history',
    'aria-label': `History of ${key}`, onclick: () => showHistory(key, historyArea) });
  valueCell.append(h('div', { class: 'change-line' }, changed, changed.textContent ? ' · ' : '', history), typedArea, historyArea);
  row.append(
    h('td', {}, h('code', { text: key }), WELL_KNOWN[key] ? h('div', { class: 'screen-id', text: WELL_KNOWN[key] }) : null),
    valueCell,
    h('td', {}, h('span', { class: `badge badge-${source}`, text: source })),
    h('td', { class: 'actions' },
      h('button', { class: 'button small', type: 'button', text: 'Types', onclick: () => showTypedReads(key, typedArea) }), ' ',
      h('button', { class: 'button small', type: 'button', text: 'Edit', onclick: () => editPreference(key, valueCell) }), ' ',
      source === 'stored'
        ? h('button', { class: 'button small danger', type: 'button', text: 'Remove', onclick: () => removePreference(key) })
        : null));
  return row;
}

async function showTypedReads(key, area) {
  if (area.childElementCount) {
    fill(area);
    return;
  }
  try {
    const reads = await Promise.all(['string', 'integer', 'float', 'bool'].map((type) =>
      api('GET', `${base}/preferences/${encodeURIComponent(key)}?as=${type}`)));
    fill(area, h('div', { class: 'typed' }, reads.map((read) =>
      h('div', {}, h('b', { text: `${read.as}(forKey:)` }), JSON.stringify(read.value)))));
  } catch (error) {
    fill(area, problemBox(error));
  }
}

/** The key's changes, newest first, with who made each (a click again hides them). */
async function showHistory(key, area) {
  if (area.childElementCount) {
    fill(area);
    return;
  }
  try {
    const page = await api('GET', `${base}/preferences/${encodeURIComponent(key)}/history?limit=20`);
    const items = page.changes.map((change) => h('li', { dataset: { eventId: change.eventId } },
      h('span', { class: 'event-id', text: `#${change.eventId}` }),
      h('span', { class: 'history-value', text: historyText(change) }),
      h('span', { class: 'history-author', text: `${authorName(change.author)}, ${timeAgo(change.timestamp)}`, title: change.timestamp })));
    const more = page.next !== null ? 'older changes: the next page of the history'
      : page.complete ? '' : `changes before event #${page.historyBegins} are no longer kept`;
    fill(area, h('div', { class: 'history' },
      items.length ? h('ol', { class: 'history-list' }, items) : h('p', { class: 'empty', text: 'No change kept in the event log.' }),
      more ? h('p', { class: 'panel-note', text: more }) : null));
  } catch (error) {
    fill(area, problemBox(error));
  }
}

/** What one change of a history set: a value, a removal, a counter step, the font settings. */
function historyText(change) {
  if (change.type === 'counter') return `${change.operation}${change.by && change.by !== 1 ? ` by ${change.by}` : ''} → ${change.stringValue}`;
  if (change.type === 'refresh') return `slider ${change.sliderValue} → ${change.effectiveFontSize} pt`;
  if (change.removed) return `removed → reads ${compact(change.value, 40)}`;
  if (change.patch) return `merged ${compact(change.patch, 60)}`;
  return compact(change.value, 60);
}

function editPreference(key, cell) {
  const input = h('input', { value: JSON.stringify(state.preferences.values[key]), 'aria-label': `New value of ${key}` });
  fill(cell, h('form', {
    class: 'row',
    onsubmit: async (event) => {
      event.preventDefault();
      await setPreference(key, input.value);
    },
  }, input, h('button', { class: 'button small primary', type: 'submit', text: 'Save' }),
  h('button', { class: 'button small', type: 'button', text: 'Cancel', onclick: () => renderPreferences() })));
  input.focus();
}

/** JSON when it parses, else the text as a string: `42` is a number, `dark` the string "dark". */
function parseValue(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function setPreference(key, text) {
  try {
    await api('PUT', `${base}/preferences/${encodeURIComponent(key)}`, { body: { value: parseValue(text) } });
    state.exists = true;
    await loadPreferences();
  } catch (error) {
    toast(`${key}: ${error.problem.detail || error.message}`, 'error');
  }
}

async function removePreference(key) {
  try {
    await api('DELETE', `${base}/preferences/${encodeURIComponent(key)}`);
    await loadPreferences();
  } catch (error) {
    toast(`${key}: ${error.problem.detail || error.message}`, 'error');
  }
}

byId('add-preference').addEventListener('submit', async (event) => {
  event.preventDefault();
  const key = byId('new-key').value.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(key)) {
    toast('A key is 1-128 letters, digits, . _ - : and starts with a letter or digit.', 'error');
    return;
  }
  await setPreference(key, byId('new-value').value);
  byId('new-key').value = '';
  byId('new-value').value = '';
});

function renderDefaults() {
  byId('defaults-version').textContent = state.defaults.version ? `set at ${versionText(state.defaults.version)}` : 'none registered';
  byId('defaults-version').title = VERSION_HINT;
  if (document.activeElement !== byId('defaults-text')) {
    byId('defaults-text').value = JSON.stringify(state.defaults.values, null, 2);
    byId('defaults-text').rows = Math.min(16, byId('defaults-text').value.split('\n').length + 1);
  }
  fill(byId('defaults-error'));
}

byId('defaults-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  let values;
  try {
    values = JSON.parse(byId('defaults-text').value || '{}');
    if (!values || typeof values !== 'object' || Array.isArray(values)) throw new Error('not an object');
  } catch {
    fill(byId('defaults-error'), h('span', { class: 'problem-inline', text: 'Defaults are one JSON object: {"key": value, …}' }));
    return;
  }
  try {
    await api('PUT', `${base}/defaults`, { body: values, ifMatch: state.defaults.version });
    byId('defaults-text').blur();
    await loadPreferences();
    toast('Defaults saved', 'ok');
  } catch (error) {
    if (error.status === 412) {
      // Someone registered other defaults since this text was loaded: never overwrite them.
      fill(byId('defaults-error'), problemBox(error, {
        action: h('button', { class: 'button small', type: 'button', text: 'Reload the current defaults',
          onclick: async () => { byId('defaults-text').blur(); await loadPreferences(); } }),
      }));
    } else {
      fill(byId('defaults-error'), problemBox(error));
    }
  }
});

// ---------- events ----------

function summary(type, data) {
  switch (type) {
    case 'counter': return `${data.operation}${data.by && data.by !== 1 ? ` by ${data.by}` : ''} → ${data.stringValue}`;
    case 'refresh': return `doRefreshNotification · slider ${data.sliderValue} → ${data.effectiveFontSize} pt`;
    case 'preference':
      if (data.defaults) return `defaults registered: ${Object.keys(data.defaults).join(', ') || 'none'}`;
      if (data.changedDefaults) return `defaults changed: ${Object.keys(data.changedDefaults).join(', ')}`;
      if (data.patch) return `${data.key} merged with ${compact(data.patch, 60)}`;
      return data.removed ? `${data.key} removed → reads ${compact(data.value, 40)}` : `${data.key} = ${compact(data.value, 60)}`;
    case 'navigation':
      return `${data.action} · session ${String(data.session || '').slice(0, 8)}…${data.stack ? ` · ${data.stack.join(' › ')}` : ''}`;
    case 'reset': return `${data.reason}: state read again`;
    default: return compact(data, 80);
  }
}

function addToTail(type, id, data, fresh) {
  const tail = byId('event-tail');
  tail.prepend(h('li', { class: fresh ? 'fresh' : null, dataset: { type, id: id || '' } },
    h('span', { class: 'event-id', text: id ? `#${id}` : '—' }),
    h('span', { class: `event-type event-type-${type}`, text: type }),
    h('span', { class: 'event-summary', text: summary(type, data) + (data && data.author ? ` · ${authorName(data.author)}` : ''),
      title: JSON.stringify(data) }),
    h('span', { class: 'event-time', text: fresh ? clock() : 'earlier' })));
  while (tail.childElementCount > TAIL_LENGTH) tail.lastElementChild.remove();
}

let preferenceReload = null;

function onEvent({ type, id, data }) {
  const replayed = id !== null && state.startedAt !== null && Number(id) <= state.startedAt;
  if (type === 'reset') {
    // Asked to start a little in the past and the log no longer goes back that far: fine.
    if (data.reason !== 'reconnected' && data.lastEventId === String(state.replayFrom)) return;
    byId('notice').textContent = data.reason === 'reconnected'
      ? `Reconnected at ${clock()}: the state was read again, so nothing is missed.`
      : `Reloaded at ${clock()}: the event log could not continue (${data.reason}), so the state was read again.`;
    addToTail(type, id, data, true);
    loadAll();
    return;
  }
  addToTail(type, id, data, !replayed);
  if (type === 'counter') applyCounter(data);
  if (type === 'refresh') {
    applyFont(data);
    if (!replayed) showRefreshFlash(id);
  }
  if (type === 'counter' || type === 'refresh' || type === 'preference') {
    clearTimeout(preferenceReload);
    preferenceReload = setTimeout(() => loadPreferences().catch(() => {}), 150);
  }
}

const stream = new LiveStream(profile, { onEvent, onStatus: (status, error) => setStreamPill(byId('stream-status'), status, error) });

// ---------- loading ----------

/** Reads everything; a profile never written reads as the app's fresh state. */
async function loadAll() {
  fill(byId('page-problem'));
  try {
    state.counter = { value: 0, stringValue: '0', version: 0, lastChange: null };
    state.font = { sliderValue: 0, fontSize: 0, effectiveFontSize: 17, version: 0, lastChange: null };
    await loadPreferences();
    state.exists = true;
  } catch (error) {
    if (error.status === 404 && /never been written/.test(error.problem.detail || '')) {
      state.exists = false;
      byId('notice').textContent = `Profile “${profile}” has no data yet: the first change below creates it.`;
      renderCounter();
      renderFont();
      renderPreferences();
      renderDefaults();
      return;
    }
    throw error;
  }
}

async function start() {
  stream.stop();
  try {
    await loadAll();
  } catch (error) {
    fill(byId('page-problem'), problemBox(error));
    setStreamPill(byId('stream-status'), 'failed', error);
    return;
  }
  // Start a few events back so the tail shows the recent past; the state read covers them.
  const latest = Math.max(state.counter.version, state.font.version, state.preferences.version, state.defaults.version);
  state.startedAt = latest;
  state.replayFrom = Math.max(0, latest - 20);
  fill(byId('event-tail'));
  stream.start(state.replayFrom);
}

byId('profile-name').textContent = profile;
byId('sessions-link').href = links.sessions(profile);
document.title = `NavPrefs · ${profile}`;
if (isProfileName(profile)) {
  buildScreens();
  renderCounter();
  renderFont();
  start();
  window.addEventListener('navprefs:token', start);
} else {
  fill(byId('page-problem'), problemBox({ status: 400, title: 'Invalid profile name',
    problem: { detail: 'A profile name is 1-64 letters, digits, . _ -, starting with a letter or digit.' } }));
}
