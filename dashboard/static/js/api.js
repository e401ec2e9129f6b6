// The API client: every request carries the bearer token from
// sessionStorage (never a cookie, never a URL), and errors come back as
// ApiError with the API's code, message and problems.

const TOKEN_KEY = 'plughost.token';

/** ApiError is an error answer of the API. */
export class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `HTTP ${status}`);
    this.status = status;
    this.code = e.code || '';
    this.problems = e.problems || [];
  }
}

/** token is the stored bearer token: null when not logged in, '' when serve runs without auth. */
export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** setToken stores the token for this tab only. */
export function setToken(t) {
  sessionStorage.setItem(TOKEN_KEY, t);
}

/** clearToken forgets the token (log out). */
export function clearToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

function headers(extra = {}) {
  const hdr = { Accept: 'application/json', ...extra };
  const t = token();
  if (t) hdr.Authorization = `Bearer ${t}`;
  return hdr;
}

/**
 * request sends one API request and returns the decoded JSON answer;
 * opts.signal aborts it (the AbortError is thrown as is).
 */
export async function request(method, path, body, opts = {}) {
  const init = { method, headers: headers(), cache: 'no-store', credentials: 'omit', signal: opts.signal };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError(0, { error: { code: 'network', message: `plughost serve does not answer (${err.message}); is it still running?` } });
  }
  const text = await resp.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { error: { code: 'http', message: text.trim() } };
  }
  if (!resp.ok) {
    if (resp.status === 401) window.dispatchEvent(new CustomEvent('plughost:unauthorized'));
    throw new ApiError(resp.status, data);
  }
  return data;
}

export const get = (path) => request('GET', path);
export const post = (path, body = {}, opts = {}) => request('POST', path, body, opts);
export const put = (path, body) => request('PUT', path, body);
export const del = (path, body) => request('DELETE', path, body);

/** serverPath is /api/servers/<name> with the name escaped. */
export function serverPath(name, rest = '') {
  return `/api/servers/${encodeURIComponent(name)}${rest}`;
}

/** exchangeCode trades a one-time login code for the token. */
export async function exchangeCode(code) {
  const resp = await fetch('/dashboard/session', {
    method: 'POST', cache: 'no-store', credentials: 'omit',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ code }),
  });
  const data = await resp.json().catch(() => null);
  if (!resp.ok) throw new ApiError(resp.status, data);
  return data.token;
}

/**
 * streamEvents follows GET /api/events (server-sent events read with
 * fetch, which can send the Authorization header where EventSource cannot)
 * and calls onEvent(name, data). It reconnects with a capped, jittered
 * backoff and reports its state through onState('live'|'retry'|'auth', seconds).
 * query is the query string of the servers page the events carry
 * ("limit=500"). The returned function stops it.
 */
export function streamEvents(onEvent, onState, query = '') {
  const q = query ? `?${query}` : '';
  let stopped = false;
  let ctrl = null;
  let delay = 1;
  const run = async () => {
    while (!stopped) {
      ctrl = new AbortController();
      try {
        const resp = await fetch(`/api/events${q}`, { headers: headers({ Accept: 'text/event-stream' }), cache: 'no-store', credentials: 'omit', signal: ctrl.signal });
        if (resp.status === 401) {
          onState('auth');
          window.dispatchEvent(new CustomEvent('plughost:unauthorized'));
          return;
        }
        if (resp.status === 404) {
          // A serve without the event stream: poll instead.
          onState('poll');
          while (!stopped) {
            try {
              onEvent('servers', await request('GET', `/api/servers${q}`));
            } catch {
              // The next round retries.
            }
            await new Promise((r) => setTimeout(r, 3000));
          }
          return;
        }
        if (!resp.ok || !resp.body) throw new Error(`HTTP ${resp.status}`);
        onState('live');
        delay = 1;
        await readEvents(resp.body, onEvent);
      } catch (err) {
        if (stopped) return;
      }
      if (stopped) return;
      const wait = Math.min(delay, 30) * (0.75 + Math.random() * 0.5);
      onState('retry', Math.round(wait));
      await new Promise((r) => setTimeout(r, wait * 1000));
      delay = Math.min(delay * 2, 30);
    }
  };
  run();
  return () => {
    stopped = true;
    if (ctrl) ctrl.abort();
  };
}

/** readEvents parses a text/event-stream body until it ends. */
async function readEvents(body, onEvent) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value.replace(/\r\n?/g, '\n');
    let end;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let name = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const i = line.indexOf(':');
        const field = i < 0 ? line : line.slice(0, i);
        const val = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
        if (field === 'event') name = val;
        else if (field === 'data') data.push(val);
      }
      if (data.length === 0) continue;
      let parsed;
      try {
        parsed = JSON.parse(data.join('\n'));
      } catch {
        continue;
      }
      onEvent(name, parsed);
    }
  }
}

/**
 * splitPath parses a config JSON path (tools.mcp.servers["a.b"].args[0])
 * into its keys: ["tools","mcp","servers","a.b","args","0"].
 */
export function splitPath(path) {
  const keys = [];
  const re = /([^.[\]]+)|\[("(?:[^"\\]|\\.)*"|\d+)\]/g;
  let m;
  while ((m = re.exec(path || '')) !== null) {
    if (m[1] !== undefined) keys.push(m[1]);
    else if (m[2].startsWith('"')) keys.push(JSON.parse(m[2]));
    else keys.push(m[2]);
  }
  return keys;
}
