// The page's shared state: the servers list as last received (from GET
// /api/servers or the event stream) and the config version it belongs to.

const listeners = new Map();

/** PAGE is how many more servers "Show more" lists (the API's default page). */
export const PAGE = 500;
/** MAX_LIMIT is the most servers one page holds (the API's MaxPageSize). */
export const MAX_LIMIT = 5000;

export const store = {
  servers: [],
  totals: null, // {servers, connected, tools} of every configured server
  more: false, // servers beyond the ones listed (the API's next_cursor)
  limit: PAGE, // how many servers the page asks for
  version: null,
  apply: null,
  loaded: false,
  events: 0, // servers events received: a GET sent before the last one is stale
};

/** pageQuery is the query string of the servers page the dashboard shows. */
export function pageQuery() {
  return `limit=${store.limit}`;
}

/** on subscribes fn to a topic ("servers", "settings"); returns the unsubscribe function. */
export function on(topic, fn) {
  if (!listeners.has(topic)) listeners.set(topic, new Set());
  listeners.get(topic).add(fn);
  return () => listeners.get(topic).delete(fn);
}

/** emit calls the subscribers of topic. */
export function emit(topic, data) {
  for (const fn of listeners.get(topic) || []) fn(data);
}

/**
 * refreshServers fetches GET /api/servers and applies it unless a servers
 * event arrived meanwhile (the event is newer than the answer).
 */
export async function refreshServers(get) {
  const seen = store.events;
  const body = await get(`/api/servers?${pageQuery()}`);
  if (store.events === seen) setServers(body);
}

/** serversEvent applies the body of a servers event. */
export function serversEvent(body) {
  store.events += 1;
  setServers(body);
}

/** setServers takes a GET /api/servers body (or the servers event's) and tells the subscribers. */
export function setServers(body) {
  store.servers = (body && body.servers) || [];
  store.totals = (body && body.totals) || null;
  store.more = Boolean(body && body.next_cursor);
  if (body && body.version !== undefined) store.version = body.version;
  store.apply = (body && body.apply) || null;
  store.loaded = true;
  emit('servers', store.servers);
}
