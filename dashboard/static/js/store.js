// The page's shared state: the servers list as last received (from GET
// /api/servers or the event stream) and the config version it belongs to.

const listeners = new Map();

export const store = {
  servers: [],
  version: null,
  apply: null,
  loaded: false,
  events: 0, // servers events received: a GET sent before the last one is stale
};

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
  const body = await get('/api/servers');
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
  if (body && body.version !== undefined) store.version = body.version;
  store.apply = (body && body.apply) || null;
  store.loaded = true;
  emit('servers', store.servers);
}
