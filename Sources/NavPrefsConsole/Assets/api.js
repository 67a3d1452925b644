// The console's only way to the server: same-origin requests to the API that openapi.yaml
// describes, with the token this tab was given. The token lives in sessionStorage only (gone
// when the tab closes, never sent anywhere but this origin), so the console can do exactly
// what that token can do and nothing more.

const TOKEN_KEY = 'navprefs.token';
/** The device the console's writes come from, as the API records it beside the token. */
const DEVICE = 'web console';

/** The bearer token of this tab, if one was given. */
export const token = {
  get() {
    return sessionStorage.getItem(TOKEN_KEY) || '';
  },
  set(value) {
    const text = (value || '').trim();
    if (text) sessionStorage.setItem(TOKEN_KEY, text);
    else sessionStorage.removeItem(TOKEN_KEY);
    window.dispatchEvent(new CustomEvent('navprefs:token'));
  },
  /** The public part of the token (`npt_<id>`), safe to show. */
  label() {
    const match = /^npt_([0-9a-f]{12})_/.exec(this.get());
    return match ? `npt_${match[1]}` : this.get() ? 'a token' : '';
  },
};

/** A refused request: the status and the problem+json the server answered (RFC 9457). */
export class ApiError extends Error {
  constructor(status, problem, path) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.path = path;
  }

  /** The problem type's last part (`precondition-failed`), or '' for a network failure. */
  get slug() {
    return String(this.problem.type || '').replace('urn:navprefs:problem:', '');
  }

  get title() {
    return this.problem.title || (this.status ? `HTTP ${this.status}` : 'No answer');
  }
}

/** `/v1/profiles/{profile}` and below, each segment escaped. */
export const paths = {
  profiles: '/v1/profiles',
  profile: (profile) => `/v1/profiles/${encodeURIComponent(profile)}`,
  sessions: (profile) => `${paths.profile(profile)}/sessions`,
  session: (profile, session) => `${paths.sessions(profile)}/${encodeURIComponent(session)}`,
};

/**
 * Sends one request and answers its JSON (null for 204). Throws ApiError for any other status,
 * and for no answer at all (status 0). `ifMatch` is a version: the write happens only if the
 * resource still has it, so a change made elsewhere meanwhile is never overwritten (412).
 */
export async function api(method, path, options = {}) {
  return (await request(method, path, options)).data;
}

/** The same, answering `{data, version}`: the version from the answer's ETag, or null. */
export async function request(method, path, { body, ifMatch } = {}) {
  const headers = { Accept: 'application/json' };
  const bearer = token.get();
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (ifMatch !== undefined && ifMatch !== null) headers['If-Match'] = `"${ifMatch}"`;
  if (method !== 'GET' && method !== 'HEAD') headers['NavPrefs-Device'] = DEVICE;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch (error) {
    throw new ApiError(0, { title: 'The server cannot be reached', detail: String(error.message || error) }, path);
  }
  if (response.status === 204) return { data: null, version: null };
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!response.ok) {
    const problem = data && typeof data === 'object' ? data : { title: response.statusText, detail: String(text || '') };
    const error = new ApiError(response.status, problem, path);
    if (response.status === 401) window.dispatchEvent(new CustomEvent('navprefs:unauthorized', { detail: error }));
    throw error;
  }
  return { data, version: versionOf(response.headers.get('ETag')) };
}

/** The version an ETag names (`"7"` → 7), or null. */
export function versionOf(etag) {
  const match = /^"(\d+)"$/.exec(etag || '');
  return match ? Number(match[1]) : null;
}
