// A profile's event stream, kept open: resumes from the last event seen after any break (a
// network error, a server restart, an expired stream token), and says when it had to start over.
import { api, paths, token } from './api.js';

const TYPES = ['counter', 'refresh', 'preference', 'navigation'];

/**
 * Follows `/v1/profiles/{profile}/events`. The browser reconnects by itself after a dropped
 * connection, sending Last-Event-ID; an answer that is not a stream (an expired stream token,
 * a server shutting down) closes the EventSource for good, so this class opens a new one with
 * a fresh stream token and `last_event_id`, backing off up to 10 s. With a bearer token, the
 * stream is opened with a stream token (EventSource cannot send headers).
 *
 * Callbacks: onEvent({type, id, data}) for each event, `reset` included (the log could not
 * continue: read the state again); onStatus(status, error) with 'connecting', 'live',
 * 'reconnecting' or 'failed' (a 4xx that retrying cannot fix, such as 404, or a `revoked`
 * event: the stream's access ended).
 */
export class LiveStream {
  constructor(profile, { types = TYPES, onEvent = () => {}, onStatus = () => {} } = {}) {
    this.profile = profile;
    this.types = types;
    this.onEvent = onEvent;
    this.onStatus = onStatus;
    this.lastEventId = null;
    this.failures = 0;
    this.stopped = true;
    this.source = null;
    this.timer = null;
    // A page the tab leaves may be kept in the back/forward cache with its stream open, and a
    // browser opens at most six connections to one host: six left pages held them all and the
    // seventh page's requests waited. The stream closes when the page is hidden and resumes,
    // from the last event seen, when it is shown again.
    this.paused = false;
    window.addEventListener('pagehide', () => {
      if (this.stopped) return;
      this.stop();
      this.paused = true;
    });
    window.addEventListener('pageshow', (event) => {
      if (!this.paused || !event.persisted) return;
      this.paused = false;
      this.start(this.lastEventId);
    });
  }

  /** Opens the stream; with `lastEventId`, it first replays every event after that id. */
  start(lastEventId = null) {
    this.stop();
    this.stopped = false;
    this.lastEventId = lastEventId;
    this.open(false);
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.source) this.source.close();
    this.source = null;
  }

  async open(reopening) {
    if (this.stopped) return;
    this.onStatus(reopening ? 'reconnecting' : 'connecting');
    const query = new URLSearchParams();
    if (this.types.length < TYPES.length) query.set('types', this.types.join(','));
    if (this.lastEventId !== null) query.set('last_event_id', String(this.lastEventId));
    if (token.get()) {
      try {
        const granted = await api('POST', `${paths.profile(this.profile)}/events/token`);
        query.set('access_token', granted.token);
      } catch (error) {
        if (error.status === 0 || error.status === 429 || error.status >= 500) this.retry();
        else this.onStatus('failed', error);
        return;
      }
    }
    if (this.stopped) return;
    // Nothing seen yet to resume from: what happened meanwhile is unknown, so once the new
    // stream is open (and nothing more can be missed) the page reads the state again.
    const unknownGap = reopening && this.lastEventId === null;
    const source = new EventSource(`${paths.profile(this.profile)}/events?${query}`);
    this.source = source;
    source.onopen = () => {
      this.failures = 0;
      this.onStatus('live');
      if (unknownGap) this.onEvent({ type: 'reset', id: null, data: { reason: 'reconnected' } });
    };
    source.onerror = () => {
      if (this.source !== source) return;
      if (source.readyState === EventSource.CLOSED) this.retry();
      else this.onStatus('reconnecting');
    };
    for (const type of [...TYPES, 'reset', 'shutdown']) {
      source.addEventListener(type, (event) => this.dispatch(type, event));
    }
    source.addEventListener('revoked', (event) => this.revoked(event));
  }

  /**
   * The server ended the stream for good: the token it was opened with was revoked, or it was
   * opened without one and the server needs one now. Reconnecting the same way cannot work: the
   * page stops following and asks for a token (a new one restarts the page).
   */
  revoked(event) {
    let data = {};
    try {
      data = JSON.parse(event.data);
    } catch {
      data = {};
    }
    this.stop();
    const error = { status: 401, title: 'Access ended', problem: { detail: data.reason || 'the server ended this stream' } };
    this.onStatus('failed', error);
    window.dispatchEvent(new CustomEvent('navprefs:unauthorized', { detail: error }));
  }

  dispatch(type, event) {
    if (event.lastEventId) this.lastEventId = event.lastEventId;
    if (type === 'shutdown') {
      // The server is stopping; the browser reconnects with the last id once one answers.
      this.onStatus('reconnecting');
      return;
    }
    let data = {};
    try {
      data = JSON.parse(event.data);
    } catch {
      data = {};
    }
    this.onEvent({ type, id: event.lastEventId || null, data });
  }

  retry() {
    if (this.source) this.source.close();
    this.source = null;
    if (this.stopped) return;
    this.onStatus('reconnecting');
    const delay = Math.min(10000, 1000 * 2 ** this.failures);
    this.failures += 1;
    this.timer = setTimeout(() => this.open(true), delay);
  }
}
