// The navigation session page: the stack as a row of phones, the top one with the bar the server
// resolves (GET navigation-bar), the calls of UINavigationController as buttons, and pans made
// with the mouse or a finger, evaluated live and performed on release. Every write names the
// version shown (If-Match): a change made elsewhere meanwhile is shown as such, never overwritten.
import { api, paths } from './api.js';
import { LiveStream } from './live.js';
import { barLook, navBar, phone } from './phone.js';
import {
  byId, fill, h, isProfileName, links, mountChrome, param, problemBox, setStreamPill, toast,
} from './ui.js';
import {
  APPEARANCE_SOURCES, BACK_BUTTON_RULES, LARGE_TITLE_RULES, RECOGNIZERS, REFUSALS, TITLE_SOURCES, VERSION_HINT, XZ_SESSION,
  explain, versionText,
} from './words.js';

mountChrome('session');

const profile = param('profile') || 'default';
const state = {
  sessions: [],
  id: param('session'),
  session: null,
  bar: null,
  gestures: null,
  pan: null,
  busy: false,
};
const NAMES = ['detail', 'settings', 'profile', 'photos', 'about', 'help', 'credits', 'legal'];
const ROOT = { id: 'home', navigationItem: { title: 'Home', rightBarButtonItems: [{ systemItem: 'add' }] } };

const sessionPath = () => paths.session(profile, state.id);
const version = () => (state.session ? state.session.version : null);

// ---------- the list of sessions ----------

async function loadSessions() {
  try {
    const list = await api('GET', paths.sessions(profile));
    state.sessions = list.sessions;
  } catch (error) {
    if (error.status === 404 && /never been written/.test(error.problem.detail || '')) state.sessions = [];
    else throw error;
  }
  renderSessionBar();
}

function renderSessionBar() {
  fill(byId('session-bar'),
    state.sessions.map((summary) => h('button', {
      class: `chip${summary.id === state.id ? ' active' : ''}`,
      type: 'button',
      title: `session ${summary.id}`,
      onclick: () => select(summary.id),
    }, summary.depth > 1 ? `${summary.root} › ${summary.top}` : summary.root,
    h('small', { text: `${summary.depth === 1 ? 'one screen' : `${summary.depth} screens`} · ${summary.id.slice(0, 6)}` }))),
    h('button', { class: 'button primary small', type: 'button', id: 'new-session-button', text: 'New session', onclick: () => createSession(false) }),
    h('button', {
      class: 'button small', type: 'button', id: 'new-xz-session-button', text: 'New XZ session',
      title: XZ_SESSION, onclick: () => createSession(true),
    }),
    h('small', { class: 'mode-note', id: 'xz-note', text: `XZ: ${XZ_SESSION.split(': ').slice(1).join(': ')}` }),
    state.session ? h('button', { class: 'button small danger', type: 'button', text: 'Delete this session', onclick: deleteSession }) : null);
}

async function createSession(customizable) {
  try {
    const created = await api('POST', paths.sessions(profile), {
      body: { root: ROOT, options: customizable ? { isCustomizable: true } : null },
    });
    await loadSessions();
    await select(created.session);
    toast(`Session ${created.session.slice(0, 6)}… created`, 'ok');
  } catch (error) {
    toast(error.problem.detail || error.message, 'error');
  }
}

async function deleteSession() {
  try {
    await api('DELETE', sessionPath(), { ifMatch: version() });
    state.id = '';
    state.session = null;
    await loadSessions();
    await select(state.sessions.length ? state.sessions[state.sessions.length - 1].id : '');
  } catch (error) {
    handleWriteError(error, 'delete');
  }
}

async function select(id) {
  state.id = id;
  const url = new URL(location.href);
  if (id) url.searchParams.set('session', id);
  else url.searchParams.delete('session');
  history.replaceState(null, '', url);
  fill(byId('conflict'));
  renderSessionBar();
  if (!id) {
    state.session = null;
    byId('session-area').hidden = true;
    byId('session-title').textContent = state.sessions.length ? 'Pick a session' : 'No session yet';
    return;
  }
  await loadSession();
}

// ---------- one session ----------

/** Reads the session, its bar and its gestures at one version (read again if a change slipped between). */
async function loadSession() {
  const id = state.id;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    let session, bar, gestures;
    try {
      [session, bar, gestures] = await Promise.all([
        api('GET', sessionPath()), api('GET', `${sessionPath()}/navigation-bar`), api('GET', `${sessionPath()}/gestures`),
      ]);
    } catch (error) {
      if (id !== state.id) return;
      state.session = null;
      byId('session-area').hidden = true;
      fill(byId('page-problem'), problemBox(error));
      return;
    }
    if (id !== state.id) return;
    if (session.version === bar.version && bar.version === gestures.version) {
      state.session = session;
      state.bar = bar.navigationBar;
      state.gestures = gestures.gestures;
      fill(byId('page-problem'));
      render();
      return;
    }
  }
}

function render() {
  const session = state.session;
  byId('session-area').hidden = false;
  byId('session-title').textContent = stackTitle(session.stack.screens);
  byId('session-title').title = `session ${session.session}, last changed at ${versionText(session.version)}. ${VERSION_HINT}`;
  renderSessionBar();
  renderStack();
  renderControls();
  renderRules();
}

/** The page's title: the screens' titles, bottom to top (a new session: its one screen). */
function stackTitle(screens) {
  const titles = screens.map(screenTitle);
  const shown = titles.length > 4 ? [titles[0], '…', ...titles.slice(-2)] : titles;
  return shown.join(' › ');
}

function screenTitle(screen) {
  const item = screen.navigationItem;
  return item.titleView || item.title || screen.id;
}

/** A screen's body: what it is, and what a person can do on it. */
function screenBody(screen, { top = false } = {}) {
  const item = screen.navigationItem;
  const facts = [];
  if (item.backButtonTitle) facts.push(['backButtonTitle', item.backButtonTitle]);
  if (item.rightBarButtonItems.length) {
    facts.push(['rightBarButtonItems', item.rightBarButtonItems.map((bar) => bar.systemItem || bar.title || bar.image).join(', ')]);
  }
  if (screen.gestures && screen.gestures.forwardTarget) facts.push(['forward target', screen.gestures.forwardTarget.id]);
  let hint = null;
  if (top && state.gestures) {
    const back = state.gestures.back;
    const forward = state.gestures.forward;
    if (back.canBegin) {
      hint = back.region.kind === 'fullScreen'
        ? `Drag right anywhere to go back to ${back.target}.`
        : `Drag from the left edge to go back to ${back.target}.`;
    } else {
      hint = `No swipe back here: ${explain(REFUSALS, back.refusal.reason).plain}.`;
    }
    if (forward.canBegin) hint += ` Drag left to push ${forward.target}.`;
  }
  return h('div', { class: 'screen-body' },
    h('div', { class: 'screen-id', text: `id: ${screen.id}` }),
    h('div', { class: 'screen-title', text: screenTitle(screen) }),
    facts.length ? h('div', { class: 'screen-facts' }, facts.map(([name, value]) => h('div', {}, h('code', { text: name }), ` ${value}`))) : null,
    hint ? h('p', { class: 'screen-hint', id: top ? 'pan-hint' : null, text: hint }) : null);
}

/** A screen below the top, as it was left: its own title, nothing resolved. */
function underPhone(screen, index) {
  return phone({
    classes: 'under',
    caption: [h('span', { class: 'depth-tag', text: `${index}` }), ' ', screen.id],
    content: [navBar({ title: screenTitle(screen), look: barLook(state.bar && state.bar.appearance) }), screenBody(screen), h('div', { class: 'home-indicator' })],
  });
}

/** The bar the server resolved for the top screen (title, back button, items, large title, look). */
function resolvedBar() {
  const bar = state.bar;
  const backButton = bar.left.backButton;
  return navBar({
    title: bar.title.title,
    titleView: bar.title.source === 'titleView' ? bar.title.titleView : null,
    back: backButton ? {
      title: backButton.title,
      hint: `Back to ${backButton.target}: ${explain(BACK_BUTTON_RULES, backButton.rule).plain} (${backButton.rule})`,
    } : null,
    left: bar.left.items,
    right: bar.right.itemsLeftToRight,
    large: bar.largeTitle.isLarge,
    look: barLook(bar.appearance),
    hidden: bar.isHidden,
    ids: { title: 'bar-title', back: 'bar-back', backTitle: 'bar-back-title', largeTitle: 'bar-large-title' },
  });
}

function renderStack() {
  const screens = state.session.stack.screens;
  const row = byId('stack-row');
  const top = screens[screens.length - 1];
  const topLayer = h('div', { class: 'screen-layer pan-surface', id: 'top-layer' }, resolvedBar(), screenBody(top, { top: true }));
  const underLayer = h('div', { class: 'screen-layer under-layer', id: 'under-layer' });
  const layers = h('div', { class: 'screen-layers' }, underLayer, topLayer, edgeRegions());
  const content = [layers, h('div', { class: 'home-indicator' })];
  if (state.session.presented) {
    const presented = state.session.presented;
    content.push(h('div', { class: 'presented-dim' }), h('div', { class: 'presented-sheet', id: 'presented-sheet' },
      navBar({ title: screenTitle(presented), right: [{ systemItem: 'done', style: 'done' }] }),
      screenBody(presented)));
  }
  fill(row, screens.slice(0, -1).map((screen, index) => underPhone(screen, index)),
    phone({
      id: 'top-phone',
      classes: 'top',
      caption: [h('span', { class: 'depth-tag', text: `${screens.length - 1}` }), ' ', h('b', { text: top.id }), ' · top',
        state.session.presented ? ` · presenting ${state.session.presented.id}` : ''],
      content,
    }));
  attachPan(topLayer, underLayer);
  row.parentElement.scrollLeft = row.scrollWidth;
}

/** Where a pan may start, drawn over the top screen (leading edge blue, trailing green). */
function edgeRegions() {
  const regions = [];
  for (const side of ['back', 'forward']) {
    const gesture = state.gestures && state.gestures[side];
    if (!gesture || !gesture.canBegin || gesture.region.kind === 'fullScreen') continue;
    const strip = h('div', { class: `edge-region ${gesture.region.kind === 'trailingEdge' ? 'trailing' : ''}` });
    strip.style.width = `${Math.max(12, gesture.region.width)}px`;
    if (gesture.region.kind === 'trailingEdge') strip.style.right = '0';
    else strip.style.left = '0';
    regions.push(strip);
  }
  return regions;
}

function renderControls() {
  const stack = state.session.stack;
  const ids = new Set(stack.screens.map((screen) => screen.id));
  if (!byId('push-id').value || ids.has(byId('push-id').value)) {
    const next = NAMES.find((name) => !ids.has(name)) || `screen-${stack.count + 1}`;
    byId('push-id').value = next;
    byId('push-title').value = next[0].toUpperCase() + next.slice(1);
  }
  // At the root there is nothing below the top to pop to: no empty menu, a sentence instead.
  const below = stack.screens.slice(0, -1).reverse();
  fill(byId('pop-to-select'), below.map((screen) => h('option', { value: screen.id, text: `${screenTitle(screen)} (${screen.id})` })));
  byId('pop-to-row').hidden = below.length === 0;
  byId('pop-to-none').hidden = below.length > 0;
  const appearance = state.session.appearance;
  byId('appearance-tint').value = appearance.barTintColor || '';
  byId('appearance-button-tint').value = appearance.tintColor || '';
  byId('appearance-large').checked = appearance.prefersLargeTitles;
  byId('appearance-translucent').checked = appearance.isTranslucent !== false;
  const recognizer = state.gestures ? state.gestures.recognizer : '';
  byId('pan-recognizer').textContent = recognizer ? explain(RECOGNIZERS, recognizer).plain : '';
  byId('pan-recognizer').title = recognizer;
}

/** One line of “The bar, and why”: what a person sees, in words, then the API's name for it. */
function rule(name, plain, code) {
  return [h('dt', { text: name }), h('dd', {}, plain, code ? h('code', { class: 'rule-code', text: code }) : null)];
}

function renderRules() {
  const bar = state.bar;
  const back = bar.left.backButton;
  const gestures = state.gestures;
  const backRule = explain(BACK_BUTTON_RULES, bar.left.backButtonRule);
  const backPan = gestures.back.canBegin
    ? { plain: `swipe back to ${gestures.back.target}`, code: gestures.back.operation }
    : explain(REFUSALS, gestures.back.refusal.reason, gestures.back.refusal.rule);
  const forwardPan = gestures.forward.canBegin
    ? { plain: `swipe left to open ${gestures.forward.target}`, code: 'push' }
    : explain(REFUSALS, gestures.forward.refusal.reason, gestures.forward.refusal.rule);
  const large = explain(LARGE_TITLE_RULES, bar.largeTitle.rule);
  const translucent = explain(APPEARANCE_SOURCES, bar.appearance.translucencySource);
  const title = explain(TITLE_SOURCES, bar.title.source);
  fill(byId('bar-rules'),
    rule('title', bar.title.title ? `“${bar.title.title}”, ${title.plain}` : title.plain, title.code),
    rule('back button', back ? `“${back.title ?? '‹'}” to ${back.target}: ${backRule.plain}` : backRule.plain, backRule.code),
    back ? rule('if it does not fit', back.fallbackTitles.length
      ? `shorter titles UIKit tries in turn: ${back.fallbackTitles.map((text) => `“${text}”`).join(', ')}, then the arrow alone`
      : 'the arrow alone', 'fallbackTitles') : [],
    rule('right items', bar.right.itemsLeftToRight.map((item) => item.systemItem || item.title || item.image).join(', ') || 'none'),
    rule('large title', `${bar.largeTitle.isLarge ? 'yes' : 'no'}: ${large.plain}`, large.code),
    rule('translucent', `${bar.appearance.isTranslucent ? 'yes' : 'no'}: ${translucent.plain}`, translucent.code),
    rule('back swipe', gestures.back.canBegin ? backPan.plain : `no: ${backPan.plain}`, backPan.code),
    rule('forward swipe', gestures.forward.canBegin ? forwardPan.plain : `no: ${forwardPan.plain}`, forwardPan.code),
    rule('version', `${versionText(state.session.version)}, its last change (the profile numbers all its changes, of any kind, in one count)`, null));
  byId('bar-rules').title = VERSION_HINT;
}

// ---------- writes ----------

/**
 * Runs one write against the version shown. A 412 means someone else changed the session since:
 * the banner says so and offers to reload; nothing is retried, so nothing is overwritten.
 */
async function write(label, method, suffix, body) {
  if (!state.session || state.busy) return null;
  state.busy = true;
  try {
    const answer = await api(method, `${sessionPath()}${suffix}`, { body, ifMatch: version() });
    fill(byId('conflict'));
    await loadSession();
    await loadSessions();
    return answer;
  } catch (error) {
    handleWriteError(error, label);
    return null;
  } finally {
    state.busy = false;
  }
}

function handleWriteError(error, label) {
  if (error.status === 412) {
    const current = error.problem.currentVersion;
    fill(byId('conflict'), h('div', { class: 'conflict', role: 'alert', id: 'conflict-banner' },
      h('span', {}, h('strong', { text: 'Changed elsewhere. ' }),
        `“${label}” was not applied: the session changed at ${current === undefined ? 'a later event' : versionText(current)}, this page shows it as of ${versionText(version())}. Nothing was overwritten.`),
      h('button', { class: 'button primary small', type: 'button', id: 'conflict-reload', text: 'Reload the session',
        onclick: async () => { fill(byId('conflict')); await loadSession(); } })));
    return;
  }
  if (error.status === 404 && error.slug === 'session-not-found') {
    fill(byId('conflict'), problemBox(error));
    loadSessions();
    return;
  }
  toast(`${label}: ${error.problem.detail || error.message}`, 'error');
}

byId('push-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const id = byId('push-id').value.trim();
  const navigationItem = { title: byId('push-title').value || null };
  if (byId('push-back-title').value) navigationItem.backButtonTitle = byId('push-back-title').value;
  if (byId('push-right').value) navigationItem.rightBarButtonItems = [{ systemItem: byId('push-right').value }];
  const answer = await write('push', 'POST', '/push', { screen: { id, navigationItem }, animated: byId('push-animated').checked });
  if (answer) byId('push-back-title').value = '';
});
byId('pop-button').addEventListener('click', async () => {
  const answer = await write('pop', 'POST', '/pop');
  if (answer && !answer.popped) toast('At the root: nothing to pop (popViewController returns nil).');
});
byId('pop-root-button').addEventListener('click', () => write('pop to root', 'POST', '/pop-to-root'));
byId('pop-to-button').addEventListener('click', () => write('pop to', 'POST', '/pop-to', { screenId: byId('pop-to-select').value }));
byId('present-form').addEventListener('submit', (event) => {
  event.preventDefault();
  write('present', 'POST', '/present', {
    screen: { id: byId('present-id').value.trim(), navigationItem: { title: byId('present-title').value || null } },
  });
});
byId('dismiss-button').addEventListener('click', () => write('dismiss', 'POST', '/dismiss'));
byId('appearance-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const tint = byId('appearance-tint').value || null;
  write('appearance', 'PUT', '/appearance', {
    barTintColor: tint,
    barStyle: tint === '#1C1C1E' ? 'black' : 'default',
    tintColor: byId('appearance-button-tint').value || null,
    prefersLargeTitles: byId('appearance-large').checked,
    isTranslucent: byId('appearance-translucent').checked,
  });
});

// ---------- pans ----------

const VELOCITY_WINDOW_MS = 100;
const RESTING_MS = 250;

/**
 * The pan as the API takes it, from the touch's samples (points are CSS pixels here). Times are
 * the events' own (`timeStamp`), not when a busy page got to them.
 */
function panBody(pan, endedAt = pan.samples[pan.samples.length - 1].t) {
  const last = pan.samples[pan.samples.length - 1];
  const recent = pan.samples.filter((sample) => last.t - sample.t <= VELOCITY_WINDOW_MS);
  // Sparse samples (a slow device, a busy page): the one before the last still gives a speed.
  const first = recent.length > 1 ? recent[0] : pan.samples[Math.max(0, pan.samples.length - 2)];
  const seconds = (last.t - first.t) / 1000;
  // A finger that rests before lifting has no speed left.
  const resting = endedAt - last.t > RESTING_MS;
  const velocity = seconds > 0 && !resting
    ? { x: (last.x - first.x) / seconds, y: (last.y - first.y) / seconds }
    : { x: 0, y: 0 };
  const round = (value) => Math.round(value * 10) / 10;
  return {
    start: { x: round(pan.start.x), y: round(pan.start.y) },
    translation: { x: round(last.x - pan.origin.x), y: round(last.y - pan.origin.y) },
    velocity: { x: round(velocity.x), y: round(velocity.y) },
    width: round(pan.width),
  };
}

function showEvaluation(evaluation, { released = false } = {}) {
  byId('pan-operation').textContent = evaluation.operation;
  byId('pan-target').textContent = evaluation.target || '—';
  byId('pan-progress').textContent = `${Math.round(evaluation.progress * 100)} %`;
  byId('pan-bar').classList.toggle('finishes', evaluation.wouldFinish);
  byId('pan-bar').firstElementChild.style.width = `${Math.round(evaluation.progress * 100)}%`;
  const verdict = byId('pan-verdict');
  if (evaluation.operation === 'none') {
    verdict.className = 'verdict no';
    verdict.textContent = evaluation.refusal
      ? `Nothing happens: ${explain(REFUSALS, evaluation.refusal.reason).plain} (${evaluation.refusal.reason}, ${evaluation.refusal.rule})`
      : 'Nothing happens';
  } else if (evaluation.wouldFinish) {
    verdict.className = 'verdict yes';
    const why = { velocity: 'fast enough', distance: 'far enough' }[evaluation.finishedBy] || evaluation.finishedBy;
    verdict.textContent = `${released ? 'Finished' : 'Would finish'}: ${evaluation.operation} to ${evaluation.target}, ${why} (${evaluation.finishedBy})`;
  } else {
    verdict.className = 'verdict no';
    verdict.textContent = `${released ? 'Cancelled' : 'Would cancel'}: not far or fast enough (40 % of the width, or 400 pt/s)`;
  }
}

function attachPan(surface, under) {
  let evaluating = false;
  let pending = false;

  const evaluate = async () => {
    if (!state.pan) return;
    if (evaluating) {
      pending = true;
      return;
    }
    evaluating = true;
    try {
      const answer = await api('POST', `${sessionPath()}/gestures/evaluate`, { body: panBody(state.pan) });
      if (state.pan) {
        state.pan.evaluation = answer.evaluation;
        showEvaluation(answer.evaluation);
        preview(answer.evaluation);
      }
    } catch (error) {
      byId('pan-verdict').textContent = `${error.status || ''} ${error.problem.detail || error.message}`;
    } finally {
      evaluating = false;
      if (pending) {
        pending = false;
        evaluate();
      }
    }
  };

  /** Moves the top screen with the finger, over the screen it would reveal. */
  const preview = (evaluation) => {
    const pan = state.pan;
    if (!pan) return;
    const dx = pan.samples[pan.samples.length - 1].x - pan.origin.x;
    const operation = evaluation ? evaluation.operation : dx > 0 ? 'pop' : 'none';
    const target = evaluation ? evaluation.target : null;
    if (target && under.dataset.target !== target) {
      const screen = state.session.stack.screens.find((candidate) => candidate.id === target)
        || { id: target, navigationItem: { title: target, rightBarButtonItems: [] }, gestures: null };
      fill(under, navBar({ title: screenTitle(screen), look: barLook(state.bar.appearance) }), screenBody(screen));
      under.dataset.target = target;
    }
    const shift = operation === 'push' ? Math.min(0, dx) : operation === 'none' ? 0 : Math.max(0, dx);
    surface.style.transform = `translateX(${shift}px)`;
  };

  surface.addEventListener('pointerdown', (event) => {
    if (event.button !== 0 || state.busy || !state.session) return;
    const rect = surface.getBoundingClientRect();
    state.pan = {
      start: { x: event.clientX - rect.left, y: event.clientY - rect.top },
      origin: { x: event.clientX, y: event.clientY },
      width: rect.width,
      samples: [{ t: event.timeStamp, x: event.clientX, y: event.clientY }],
      evaluation: null,
    };
    surface.setPointerCapture(event.pointerId);
    surface.classList.remove('settling');
    surface.classList.add('moving');
    event.preventDefault();
  });
  surface.addEventListener('pointermove', (event) => {
    if (!state.pan) return;
    const samples = state.pan.samples;
    samples.push({ t: event.timeStamp, x: event.clientX, y: event.clientY });
    if (samples.length > 64) samples.splice(0, samples.length - 64);
    preview(state.pan.evaluation);
    evaluate();
  });
  const release = async (event) => {
    const pan = state.pan;
    if (!pan) return;
    state.pan = null;
    samplesAt(pan, event);
    surface.classList.remove('moving');
    surface.classList.add('settling');
    const moved = Math.abs(pan.samples[pan.samples.length - 1].x - pan.origin.x) + Math.abs(pan.samples[pan.samples.length - 1].y - pan.origin.y);
    if (moved < 4) {
      surface.style.transform = '';
      return;
    }
    const body = panBody(pan, event.timeStamp);
    document.body.dataset.lastPan = JSON.stringify(body);
    const answer = await write('pan', 'POST', '/gestures/perform', body);
    if (!answer) {
      surface.style.transform = '';
      return;
    }
    showEvaluation(answer.evaluation, { released: true });
    if (!answer.transition) surface.style.transform = '';
  };
  surface.addEventListener('pointerup', release);
  surface.addEventListener('pointercancel', () => {
    state.pan = null;
    surface.classList.remove('moving');
    surface.style.transform = '';
  });
}

/** Adds the release point, when it moved since the last sample. */
function samplesAt(pan, event) {
  const last = pan.samples[pan.samples.length - 1];
  if (event.clientX !== last.x || event.clientY !== last.y) {
    pan.samples.push({ t: event.timeStamp, x: event.clientX, y: event.clientY });
  }
}

// ---------- live ----------

let reload = null;

function onEvent({ type, data }) {
  if (type === 'reset') {
    loadSessions().then(() => state.id && loadSession());
    return;
  }
  if (type !== 'navigation') return;
  if (data.session === state.id && data.action === 'delete') {
    toast('This session was deleted elsewhere.');
    select('').then(loadSessions);
    return;
  }
  clearTimeout(reload);
  reload = setTimeout(async () => {
    await loadSessions();
    if (data.session === state.id && state.session && data.version > state.session.version && !state.busy && !state.pan) {
      await loadSession();
    }
  }, 60);
}

const stream = new LiveStream(profile, {
  types: ['navigation'],
  onEvent,
  onStatus: (status, error) => setStreamPill(byId('stream-status'), status, error),
});

byId('follow').addEventListener('change', async () => {
  if (byId('follow').checked) {
    stream.start();
    await loadSessions();
    if (state.id) await loadSession();
  } else {
    stream.stop();
    setStreamPill(byId('stream-status'), 'paused');
  }
});

async function start() {
  try {
    stream.start();
    await loadSessions();
    await select(state.id || (state.sessions.length ? state.sessions[state.sessions.length - 1].id : ''));
  } catch (error) {
    stream.stop();
    setStreamPill(byId('stream-status'), 'failed', error);
    fill(byId('page-problem'), problemBox(error));
  }
}

byId('profile-link').textContent = profile;
byId('profile-link').href = links.profile(profile);
document.title = `NavPrefs · ${profile} · navigation`;
if (isProfileName(profile)) {
  start();
  window.addEventListener('navprefs:token', start);
} else {
  fill(byId('page-problem'), problemBox({ status: 400, title: 'Invalid profile name',
    problem: { detail: 'A profile name is 1-64 letters, digits, . _ -, starting with a letter or digit.' } }));
}
