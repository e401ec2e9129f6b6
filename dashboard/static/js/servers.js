// The Servers tab: every server with its live status and metrics, as a
// compact table (filter, sort, problems only) or as cards; a detail view
// with actions, tools and stderr, fetched when opened; the search preview.

import * as api from './api.js';
import { h, replace, uid, toast, formatMs, formatBytes, untilText, confirmDialog } from './dom.js';
import { store, on, emit, refreshServers, PAGE, MAX_LIMIT } from './store.js';
import { chart } from './chart.js';
import { openServerForm } from './serverform.js';
import { waitingSection, findingList, visible } from './approval.js';
import { view, chooseView, select, problem, COLUMNS, CARDS_UP_TO } from './serverview.js';

const entries = new Map(); // name → {row, expanded, detail, card, tr, detailEl, …}
const opts = { text: '', problemsOnly: false, sort: { key: 'name', dir: 1 } };
const el = {}; // the tab's fixed elements
let current = 'cards';
let reachable = true;
let seen = null; // an IntersectionObserver: cards fetch their chart when on screen

/** mountServers builds the tab into panel and keeps it in step with the store. */
export function mountServers(panel) {
  el.panel = panel;
  el.summary = h('p', { class: 'sub', id: 'servers-summary' });
  el.banner = h('div', { class: 'banner warn', role: 'alert', hidden: true });
  el.stale = h('div', { class: 'banner bad', id: 'serve-unreachable', role: 'alert', hidden: true });
  el.list = h('div', { class: 'server-list', role: 'list', 'aria-labelledby': 'servers-title' });
  el.tbody = h('tbody', {});
  el.table = h('div', { class: 'table-wrap', hidden: true },
    h('table', { class: 'server-table', 'aria-labelledby': 'servers-title', 'aria-describedby': 'servers-shown' },
      h('thead', {}, h('tr', {}, COLUMNS.map(header))), el.tbody));
  el.nomatch = h('p', { class: 'muted nomatch', hidden: true }, 'No server matches.');
  el.more = h('button', { type: 'button', class: 'btn', id: 'more-servers', hidden: true, onclick: showMore });
  el.empty = h('div', { class: 'empty', hidden: true },
    h('h2', {}, 'No servers yet'),
    h('p', {}, 'Add one by hand, or install a preset from the Catalog tab.'));
  replace(panel,
    h('div', { class: 'panel-head' },
      h('div', {}, h('h1', { id: 'servers-title' }, 'Servers'), el.summary),
      h('button', { type: 'button', class: 'btn primary', id: 'add-server', onclick: () => openServerForm({ mode: 'add' }) }, '+ Add server')),
    el.stale, el.banner, searchBox(store.servers.length <= CARDS_UP_TO), toolbar(), el.empty, el.list, el.table, el.nomatch, el.more);
  if ('IntersectionObserver' in window) seen = new IntersectionObserver(onScreen);
  on('servers', render);
  on('stream', (state) => setReachable(state === 'live' || state === 'poll'));
  render(store.servers);
  setInterval(tick, 1000);
}

/** toolbar is the filter, the problems-only toggle and the view switch. */
function toolbar() {
  const fid = uid('filter');
  el.filter = h('input', { id: fid, type: 'search', class: 'filter', placeholder: 'Name, state, error…', autocomplete: 'off' });
  el.filter.addEventListener('input', () => {
    opts.text = el.filter.value;
    render(store.servers);
  });
  el.problems = h('input', { type: 'checkbox', id: 'problems-only' });
  el.problems.addEventListener('change', () => {
    opts.problemsOnly = el.problems.checked;
    render(store.servers);
  });
  el.problemsLabel = h('label', { for: 'problems-only' }, 'Problems only');
  el.shown = h('span', { class: 'muted shown', id: 'servers-shown', role: 'status', 'aria-live': 'polite' });
  el.views = ['table', 'cards'].map((v) => h('button', { type: 'button', class: 'btn small', 'data-view': v, 'aria-pressed': 'false', onclick: () => switchView(v) }, v === 'table' ? 'Table' : 'Cards'));
  el.toolbar = h('div', { class: 'server-toolbar', role: 'group', 'aria-label': 'Which servers to show' },
    h('div', { class: 'field inline' }, h('label', { for: fid }, 'Filter'), el.filter),
    h('div', { class: 'check' }, el.problems, el.problemsLabel),
    el.shown,
    h('div', { class: 'view-switch', role: 'group', 'aria-label': 'View' }, el.views));
  return el.toolbar;
}

function switchView(v) {
  chooseView(v);
  render(store.servers);
}

/** header is a sortable column's heading: a button, with aria-sort on the cell. */
function header(col) {
  const th = h('th', { scope: 'col', 'data-key': col.key, class: col.num ? 'num' : null, 'aria-sort': col.key === opts.sort.key ? 'ascending' : 'none' },
    h('button', { type: 'button', class: 'sort', title: col.title || null }, col.label, h('span', { class: 'sort-mark', 'aria-hidden': 'true' })));
  th.firstChild.addEventListener('click', () => {
    opts.sort = { key: col.key, dir: opts.sort.key === col.key ? -opts.sort.dir : 1 };
    for (const cell of th.parentNode.children) {
      const on = cell.dataset.key === opts.sort.key;
      cell.setAttribute('aria-sort', on ? (opts.sort.dir > 0 ? 'ascending' : 'descending') : 'none');
    }
    render(store.servers);
  });
  return th;
}

function render(servers) {
  const names = new Set(servers.map((s) => s.name));
  for (const [name, c] of entries) {
    if (!names.has(name)) drop(c);
  }
  for (const s of servers) {
    if (!entries.has(s.name)) entries.set(s.name, newEntry(s.name));
    track(entries.get(s.name), s);
  }
  current = view(servers.length);
  const shown = select(servers, opts).map((s) => entries.get(s.name));
  if (current === 'cards') renderCards(shown);
  else renderTable(shown);
  el.list.hidden = current !== 'cards';
  el.table.hidden = current !== 'table' || servers.length === 0;
  for (const b of el.views) b.setAttribute('aria-pressed', String(b.dataset.view === current));
  el.toolbar.hidden = servers.length === 0;
  el.nomatch.hidden = shown.length > 0 || servers.length === 0;
  const problems = servers.filter(problem).length;
  el.problemsLabel.textContent = `Problems only (${problems})`;
  el.shown.textContent = shown.length === servers.length ? '' : `Showing ${shown.length} of ${servers.length}`;
  renderSummary(servers);
}

function renderSummary(servers) {
  const t = store.totals || {
    servers: servers.length,
    connected: servers.filter((s) => s.state === 'connected').length,
    tools: servers.filter((s) => s.state === 'connected').reduce((n, s) => n + (s.tools || 0), 0),
  };
  el.summary.textContent = t.servers
    ? `${t.servers} configured · ${t.connected} connected · ${t.tools} tools`
    : 'Nothing configured yet';
  if (store.more) {
    el.summary.textContent += ` · the first ${servers.length} listed`;
    if (store.limit >= MAX_LIMIT) el.summary.textContent += ' (`plughost mcp list` lists them all)';
  }
  el.more.hidden = !store.more || store.limit >= MAX_LIMIT;
  el.more.textContent = `Show ${Math.min(PAGE, t.servers - servers.length)} more servers`;
  el.empty.hidden = servers.length > 0;
  const a = store.apply;
  el.banner.hidden = !a || a.ok !== false;
  if (a && a.ok === false) replace(el.banner, h('strong', {}, 'The config file was not applied. '), `Still running the previous one: ${a.error || ''}`);
}

/** place puts nodes into parent in this order, and removes the rest. */
function place(parent, nodes) {
  nodes.forEach((n, i) => {
    if (parent.children[i] !== n) parent.insertBefore(n, parent.children[i] || null);
  });
  while (parent.children.length > nodes.length) parent.lastElementChild.remove();
}

function renderCards(shown) {
  for (const c of shown) {
    if (!c.card) newCard(c);
    if (c.detailEl.parentNode !== c.card.el) c.card.el.append(c.detailEl);
    updateCard(c, c.row);
  }
  place(el.list, shown.map((c) => c.card.el));
}

function renderTable(shown) {
  const nodes = [];
  for (const c of shown) {
    if (!c.tr) newRow(c);
    if (c.detailEl.parentNode !== c.tr.cell) c.tr.cell.append(c.detailEl);
    updateRow(c, c.row);
    nodes.push(c.tr.el);
    if (c.expanded) nodes.push(c.tr.detail);
  }
  place(el.tbody, nodes);
}

function newEntry(name) {
  return {
    name, row: null, expanded: false, detail: null, lastCalls: -1, fetching: false, card: null, tr: null,
    detailEl: h('div', { class: 'card-detail', id: uid('detail'), hidden: true }),
  };
}

function drop(c) {
  if (c.card) {
    c.card.el.remove();
    if (seen) seen.unobserve(c.card.el);
  }
  if (c.tr) {
    c.tr.el.remove();
    c.tr.detail.remove();
  }
  entries.delete(c.name);
}

/** showMore lists PAGE more servers (the list and its event stream page further). */
function showMore() {
  store.limit = Math.min(store.limit + PAGE, MAX_LIMIT);
  emit('limit', store.limit);
  refreshServers(api.get).catch((err) => toast(err.message, 'error'));
}

function toggleButton(c, cls) {
  const b = h('button', { type: 'button', class: cls, 'aria-expanded': String(c.expanded), 'aria-controls': c.detailEl.id },
    h('span', { class: 'chev', 'aria-hidden': 'true' }), h('span', { class: 'name' }, c.name));
  b.addEventListener('click', () => setExpanded(c, !c.expanded));
  return b;
}

function waitingButton(c) {
  // Not a .badge: a card's or row's one .badge is its status.
  const b = h('button', { type: 'button', class: 'trust-badge', hidden: true, title: 'Tools quarantined until a person approves them: show them' });
  b.addEventListener('click', () => showWaiting(c));
  return b;
}

function newCard(c) {
  const parts = {
    toggle: toggleButton(c, 'card-toggle'),
    badge: h('span', { class: 'badge' }),
    waiting: waitingButton(c),
    chips: h('div', { class: 'chips' }),
    stats: h('div', { class: 'stats', title: 'The last 15 minutes' }),
    spark: h('div', { class: 'spark' }),
    error: h('p', { class: 'card-error', hidden: true }),
  };
  const card = h('article', { class: 'server-card', role: 'listitem', 'data-name': c.name, 'aria-label': `Server ${c.name}` },
    // The name is the card's heading (h2 under the tab's h1), so the detail's h3s follow in order.
    h('div', { class: 'card-head' }, h('h2', { class: 'card-title' }, parts.toggle), parts.waiting, parts.badge),
    h('div', { class: 'card-body' }, parts.chips, h('div', { class: 'card-metrics' },
      h('div', { class: 'window' }, parts.stats, h('span', { class: 'window-label' }, 'last 15 min')),
      h('div', { class: 'window' }, parts.spark, h('span', { class: 'window-label' }, 'calls/min · 30 min')))),
    parts.error);
  card.classList.toggle('open', c.expanded);
  c.card = { el: card, parts };
  if (seen) seen.observe(card);
  if (c.detail) renderSpark(c);
}

/** newRow makes a server's table row and the row under it for its detail. */
function newRow(c) {
  const cells = {
    toggle: toggleButton(c, 'row-toggle'),
    waiting: waitingButton(c),
    badge: h('span', { class: 'badge' }),
    transport: h('td', {}),
    tools: h('td', { class: 'num' }),
    calls: h('td', { class: 'num' }),
    errors: h('td', { class: 'num' }),
    p99: h('td', { class: 'num' }),
    why: h('span', { class: 'row-why', hidden: true }),
  };
  const row = h('tr', { class: 'server-row', 'data-name': c.name },
    h('th', { scope: 'row' }, h('div', { class: 'row-name' }, cells.toggle, cells.waiting)),
    h('td', { class: 'row-state' }, cells.badge, cells.why), cells.transport, cells.tools, cells.calls, cells.errors, cells.p99);
  const cell = h('td', { colspan: String(COLUMNS.length) });
  c.tr = { el: row, cells, cell, detail: h('tr', { class: 'detail-row', 'data-name': c.name }, cell) };
}

/** onScreen fetches the detail (for the chart) of cards scrolled into view. */
function onScreen(changes) {
  for (const ch of changes) {
    const c = entries.get(ch.target.dataset.name);
    if (!c) continue;
    c.onScreen = ch.isIntersecting;
    if (c.onScreen && current === 'cards' && c.row && (c.row.calls ?? 0) !== c.lastCalls) refreshDetail(c);
  }
}

/** wantsDetail says whether a server's detail is worth a request now. */
function wantsDetail(c) {
  if (c.expanded) return true;
  return current === 'cards' && c.onScreen && (c.row.calls ?? 0) !== c.lastCalls;
}

/** status returns the badge's class and text for a server row. */
export function status(s) {
  switch (s.state) {
    case 'connected':
      return ['ok', `Connected · ${s.tools} tool${s.tools === 1 ? '' : 's'}`];
    case 'connecting':
      // A package runner's first start may spend minutes downloading (npx, uvx …).
      return s.installing ? ['busy', `Installing · first start of a ${s.installing} package…`] : ['busy', 'Connecting…'];
    case 'error':
      return s.next_retry ? ['bad', `Restarting · next try ${untilText(s.next_retry)}`] : ['bad', 'Error'];
    case 'needs login':
      return ['warn', 'Needs login'];
    case 'disabled':
      return ['off', 'Disabled'];
    case 'invalid':
      return ['bad', 'Invalid config'];
    default:
      return ['off', s.state ? s.state[0].toUpperCase() + s.state.slice(1) : 'Unknown'];
  }
}

/**
 * track takes a server's new row. A connection being torn down (a crash,
 * a stop) still reads "connected" with no tools and no process until the
 * supervisor records what comes next: that row is marked as ending, not
 * shown as "Connected · 0 tools".
 */
function track(c, s) {
  c.ending = s.state === 'connected' && !s.plugin_pid && !s.tools && c.pid > 0;
  if (s.state !== 'connected') c.pid = 0;
  else if (s.plugin_pid) c.pid = s.plugin_pid;
  c.row = s;
}

/** badge is a row's status badge, greyed and marked when serve is unreachable. */
function badge(c) {
  const [kind, text] = c.ending ? ['busy', 'Disconnecting…'] : status(c.row);
  return reachable ? [kind, text] : ['off', `${text} (last seen)`];
}

function setBadge(b, c) {
  const [kind, text] = badge(c);
  if (b.className !== `badge ${kind}`) b.className = `badge ${kind}`;
  if (b.textContent !== text) b.textContent = text;
}

/**
 * reason is what a server's error box says: its error, or a problem it
 * runs despite (now), or its last error (past); '' for none.
 */
function reason(s) {
  // Now, not past: an invalid entry the server runs despite, a flood it is throttled for.
  const now = [s.config_error, s.throttle].filter(Boolean).join(' · ');
  if (s.state === 'error') return { text: s.last_error || s.description || '', now: true };
  if (s.state === 'invalid' || s.state === 'needs login' || (s.state === 'disabled' && s.last_error)) return { text: s.description || s.last_error || '', now: true };
  if (now) return { text: now, now: true };
  return { text: s.last_error ? `Last error: ${s.last_error}` : '', now: s.state !== 'connected' };
}

function showReason(p, s) {
  const r = reason(s);
  p.hidden = !r.text;
  if (p.textContent !== r.text) p.textContent = r.text;
  p.classList.toggle('past', !r.now);
}

function updateCard(c, s) {
  const p = c.card.parts;
  setBadge(p.badge, c);
  c.card.el.dataset.state = s.state;
  updateTrust(c.card.el, p.waiting, s);
  const chips = [h('span', { class: 'chip', title: 'Transport' }, transportName(s.transport || s.type))];
  if (s.detected) chips.push(h('span', { class: 'chip subtle', title: 'The transport was detected from command or url' }, 'auto-detected'));
  chips.push(h('span', { class: `chip ${s.deferred ? 'deferred' : ''}`, title: deferredWhy(s) }, s.deferred ? `Deferred · ${s.deferred_reason}` : `Visible · ${s.deferred_reason}`));
  if (s.restarts) chips.push(h('span', { class: 'chip warn' }, `${s.restarts} restart${s.restarts === 1 ? '' : 's'}`));
  if (s.flagged) chips.push(h('span', { class: 'chip flag', title: `The definition scan flagged ${s.flagged} tool${s.flagged === 1 ? '' : 's'}: open the server to read the findings` }, `⚑ ${s.flagged} flagged`));
  if (authState(s) === 'needs_login') chips.push(h('span', { class: 'chip warn' }, 'OAuth · needs login'));
  else if (authState(s) === 'ok') chips.push(h('span', { class: 'chip' }, 'OAuth · logged in'));
  replace(p.chips, chips);
  replace(p.stats,
    stat('Calls', s.calls ?? 0), stat('Errors', s.errors ?? 0),
    stat('p50', s.calls ? formatMs(s.p50_ms) : '–'), stat('p99', s.calls ? formatMs(s.p99_ms) : '–'));
  showReason(p.error, s);
  afterUpdate(c);
}

function updateRow(c, s) {
  const x = c.tr.cells;
  c.tr.el.dataset.state = s.state;
  setBadge(x.badge, c);
  updateTrust(c.tr.el, x.waiting, s);
  const cells = [
    [x.transport, transportName(s.transport || s.type)],
    [x.tools, s.state === 'connected' ? String(s.tools ?? 0) : '–'],
    [x.calls, String(s.calls ?? 0)],
    [x.errors, String(s.errors ?? 0)],
    [x.p99, s.calls ? formatMs(s.p99_ms) : '–'],
  ];
  for (const [td, v] of cells) if (td.textContent !== v) td.textContent = v;
  showReason(x.why, s);
  x.why.title = x.why.textContent;
  afterUpdate(c);
}

/** afterUpdate fetches and redraws the detail when it is wanted. */
function afterUpdate(c) {
  if (wantsDetail(c)) refreshDetail(c);
  if (c.expanded && c.detail) renderDetail(c);
}

/**
 * updateTrust shows how many tools wait for approval: a badge loud enough
 * to find one such server among fifty (and the card or row is marked too).
 */
function updateTrust(box, b, s) {
  const n = s.waiting || 0;
  b.hidden = n === 0;
  const text = `⚠ ${n} waiting for approval`;
  if (b.textContent !== text) b.textContent = text;
  box.classList.toggle('has-waiting', n > 0);
}

/**
 * showWaiting opens the detail at its "Waiting for approval" section, now
 * or, when the detail is still being fetched, once it is drawn.
 */
function showWaiting(c) {
  c.wantWaiting = true;
  if (!c.expanded) setExpanded(c, true);
  else renderDetail(c);
}

/** goToWaiting scrolls to and focuses the section when it was asked for. */
function goToWaiting(c) {
  const el = c.d.waiting;
  if (!c.wantWaiting || el.hidden) return;
  c.wantWaiting = false;
  el.scrollIntoView({ block: 'start' });
  el.focus({ preventScroll: true });
}

function stat(label, value) {
  return h('span', { class: 'stat' }, h('span', { class: 'stat-label' }, label), h('span', { class: 'stat-value' }, String(value)));
}

function transportName(t) {
  return { stdio: 'stdio', http: 'Streamable HTTP', sse: 'SSE', 'streamable-http': 'Streamable HTTP' }[t] || t || 'unknown';
}

function deferredWhy(s) {
  return {
    global: 'Deferred: tools are found through search (the global default)',
    'opt-in': 'Deferred: this server asks for it ("deferred": true)',
    'opt-out': 'Always visible: this server opts out ("deferred": false)',
    'discovery off': 'Discovery is off: every tool is visible',
  }[s.deferred_reason] || s.deferred_reason || '';
}

/** authState reads a row's login state from either shape of "auth". */
function authState(s) {
  if (typeof s.auth === 'string') return s.auth;
  if (s.auth && typeof s.auth === 'object') return s.auth.needs_login ? 'needs_login' : s.auth.logged_in ? 'ok' : 'needs_login';
  return s.state === 'needs login' ? 'needs_login' : 'none';
}

/** refreshDetail fetches GET /api/servers/{name} (one request at a time per server). */
async function refreshDetail(c) {
  if (c.fetching) {
    c.again = true;
    return;
  }
  c.fetching = true;
  c.lastCalls = c.row ? c.row.calls ?? 0 : 0;
  try {
    c.detail = await api.get(api.serverPath(c.name));
    renderSpark(c);
    if (c.expanded) renderDetail(c);
  } catch (err) {
    if (err.status !== 404) c.detailError = err.message;
  } finally {
    c.fetching = false;
    if (c.again) {
      c.again = false;
      setTimeout(() => refreshDetail(c), 1000);
    }
  }
}

function series(c) {
  return (c.detail && c.detail.stats && c.detail.stats.series) || [];
}

function renderSpark(c) {
  if (c.card) replace(c.card.parts.spark, chart(series(c), { width: 132, height: 32 }));
}

function setExpanded(c, on) {
  c.expanded = on;
  for (const b of [c.card && c.card.parts.toggle, c.tr && c.tr.cells.toggle]) if (b) b.setAttribute('aria-expanded', String(on));
  c.detailEl.hidden = !on;
  if (c.card) c.card.el.classList.toggle('open', on);
  if (c.tr) {
    if (on && current === 'table') c.tr.el.after(c.tr.detail);
    else c.tr.detail.remove();
  }
  if (on) {
    if (!c.built) buildDetail(c);
    if (c.detail) renderDetail(c);
    refreshDetail(c);
  }
}

/** buildDetail makes the detail's fixed parts once (so focus survives updates). */
function buildDetail(c) {
  c.built = true;
  const d = {};
  d.enable = h('button', { type: 'button', class: 'btn', onclick: () => toggleEnabled(c) }, 'Disable');
  d.login = h('button', { type: 'button', class: 'btn', hidden: true, onclick: () => login(c) }, 'Log in');
  d.testOut = h('p', { class: 'test-out', role: 'status', 'aria-live': 'polite' });
  d.info = h('dl', { class: 'info' });
  d.chart = h('div', { class: 'chart-box' });
  d.stderr = h('pre', { class: 'stderr', tabindex: '0', 'aria-label': `Standard error of ${c.name} (last lines, secrets masked)` });
  d.stderrWrap = h('section', { class: 'sub-section' }, h('h3', {}, 'Stderr (last lines, secrets masked)'), d.stderr);
  d.waiting = h('section', { class: 'sub-section waiting', tabindex: '-1', hidden: true });
  d.tools = h('div', { class: 'tools' });
  d.toolsTitle = h('h3', {}, 'Tools');
  replace(c.detailEl,
    h('div', { class: 'actions-bar', role: 'group', 'aria-label': `Actions for ${c.name}` },
      h('button', { type: 'button', class: 'btn', onclick: () => edit(c) }, 'Edit'),
      d.enable,
      h('button', { type: 'button', class: 'btn', onclick: () => test(c, d) }, 'Test'),
      d.login,
      h('button', { type: 'button', class: 'btn danger-ghost', onclick: () => remove(c) }, 'Remove')),
    d.testOut,
    h('div', { class: 'detail-grid' },
      h('section', { class: 'sub-section' }, h('h3', {}, 'Calls per minute, last 30 minutes'), d.chart,
        h('p', { class: 'legend' }, h('span', { class: 'key bar' }), 'calls ', h('span', { class: 'key err' }), 'errors ', h('span', { class: 'key lat' }), 'p99 latency')),
      h('section', { class: 'sub-section' }, h('h3', {}, 'Details'), d.info)),
    d.waiting,
    d.stderrWrap,
    h('section', { class: 'sub-section' }, d.toolsTitle, d.tools));
  c.d = d;
}

function renderDetail(c) {
  if (!c.d) buildDetail(c);
  const d = c.d;
  const row = c.row || {};
  const det = c.detail || {};
  const cfg = det.config || {};
  const said = reason(row).text; // on the card or row already: not again below
  d.enable.textContent = row.enabled === false || row.state === 'disabled' ? 'Enable' : 'Disable';
  d.login.hidden = !cfg.oauth;
  d.login.textContent = authState(row) === 'ok' ? 'Log in again' : 'Log in';
  const pts = series(c);
  replace(d.chart, chart(pts, { width: 480, height: 130, large: true }),
    pts.some((x) => x.calls) ? null : h('p', { class: 'chart-empty' }, 'No calls in the last 30 minutes'));
  const info = [
    ['Status', row.description && !(said && (said.includes(row.description) || row.description.includes(said))) ? row.description : status(row)[1]],
    ['Transport', `${transportName(row.transport || row.type)}${row.detected ? ' (auto-detected)' : ''}${row.transport_note ? ` — ${row.transport_note}` : ''}`],
    ['Deferred', `${row.deferred ? 'yes' : 'no'} — ${deferredWhy(row)}`],
    ['Restarts', String(row.restarts ?? 0)],
    row.server_name ? ['Reports itself as', `${row.server_name} ${row.server_version || ''}`.trim()] : null,
    row.protocol_version ? ['Protocol', row.protocol_version] : null,
    row.startup_ns ? ['Started in', formatMs(row.startup_ns / 1e6)] : null,
    cfg.command ? ['Command', [cfg.command, ...(cfg.args || [])].join(' ')] : null,
    cfg.url ? ['URL', cfg.url] : null,
    row.last_error && !said.includes(row.last_error) ? ['Last error', row.last_error] : null,
  ].filter(Boolean);
  replace(d.info, info.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
  const tail = det.stderr ?? row.stderr_tail ?? '';
  d.stderrWrap.hidden = !tail;
  d.stderr.textContent = tail;
  renderWaiting(c);
  const tools = det.tools || [];
  const findings = det.findings || {};
  const hidden = cfg.exclude_tools || [];
  const sig = JSON.stringify([tools.map((t) => t.name), findings, hidden, cfg.include_tools || []]);
  if (sig !== d.toolSig) {
    d.toolSig = sig;
    d.toolsTitle.textContent = `Tools (${tools.length})`;
    replace(d.tools, tools.length
      ? tools.map((t) => toolItem(t, findings[t.server_tool] || [], () => setHidden(c, t.server_tool, true)))
      : h('p', { class: 'muted' }, 'No tools listed (the server is not connected, or lists none).'),
    hidden.length ? hiddenList(c, hidden) : null);
  }
}

/** hiddenList lists the server's exclude_tools, each with a button that shows it again. */
function hiddenList(c, hidden) {
  return h('div', { class: 'hidden-tools' },
    h('h4', {}, `Hidden from every client (${hidden.length})`),
    h('ul', {}, hidden.map((g) => h('li', {}, h('code', {}, g), ' ',
      h('button', { type: 'button', class: 'btn small', 'aria-label': `Show ${g} again`, onclick: () => setHidden(c, g, false) }, 'Show again')))));
}

/**
 * setHidden adds a tool to the server's exclude_tools (hide) or removes
 * the entry (show): the same write as the form's Tool filters, applied
 * at once without restarting the server.
 */
async function setHidden(c, tool, hide) {
  if (hide && !(await confirmDialog({ title: `Hide ${tool}?`, body: `No client of plughost will see or call ${tool} of ${c.name} (it is added to the server's exclude_tools). Show it again from this list.`, confirm: 'Hide' }))) return;
  try {
    const det = await api.get(api.serverPath(c.name));
    const server = { ...det.config };
    const list = (server.exclude_tools || []).filter((g) => g !== tool);
    if (hide) list.push(tool);
    server.exclude_tools = list;
    await api.put(api.serverPath(c.name), { server, if_version: det.version });
    toast(hide ? `${tool} is hidden from every client` : `${tool} is shown again`, 'ok');
    await refreshDetail(c);
  } catch (err) {
    toast(err.message, 'error');
  }
}

/**
 * renderWaiting redraws the tools waiting for approval only when they
 * change: a redraw on every update would lose the reader's place.
 */
function renderWaiting(c) {
  const held = (c.detail && c.detail.quarantined) || [];
  const sig = JSON.stringify(held.map((t) => [t.tool, t.digest, t.reasons, t.pinned && t.pinned.digest]));
  if (sig === c.d.waitSig) {
    goToWaiting(c);
    return;
  }
  c.d.waitSig = sig;
  c.d.waiting.hidden = held.length === 0;
  replace(c.d.waiting, held.length ? waitingSection(c.name, held, () => afterApproval(c)) : null);
  goToWaiting(c);
}

/** afterApproval refreshes the detail and the rows. */
function afterApproval(c) {
  refreshDetail(c);
  refreshServers(api.get).catch(() => {});
}

function toolItem(t, findings, hide) {
  const schema = t.input_schema ? JSON.stringify(t.input_schema, null, 2) : 'no input schema';
  const original = t.server_tool || t.server_name;
  return h('details', { class: 'tool', 'data-tool': original || t.name },
    h('summary', {}, h('code', { class: 'tool-name' }, t.name),
      original && original !== t.name ? h('span', { class: 'muted' }, ` ← ${original}`) : null,
      findings.length ? h('span', { class: 'chip flag', title: 'The definition scan flagged this tool' }, '⚑ flagged') : null,
      t.description ? h('span', { class: 'tool-desc' }, visible(t.description)) : null),
    findingList(findings),
    h('p', {}, h('button', { type: 'button', class: 'btn small', onclick: hide }, 'Hide from clients')),
    h('h4', {}, 'Input schema'), h('pre', { class: 'schema' }, schema),
    t.output_schema ? [h('h4', {}, 'Output schema'), h('pre', { class: 'schema' }, JSON.stringify(t.output_schema, null, 2))] : null);
}

async function edit(c) {
  try {
    const det = await api.get(api.serverPath(c.name));
    openServerForm({ mode: 'edit', name: c.name, server: det.config, version: det.version ?? store.version });
  } catch (err) {
    toast(err.message, 'error');
  }
}

async function toggleEnabled(c) {
  const enable = c.row && (c.row.enabled === false || c.row.state === 'disabled');
  try {
    await api.post(api.serverPath(c.name, '/enabled'), { enabled: enable, if_version: store.version });
    toast(`${c.name} ${enable ? 'enabled' : 'disabled'}`, 'ok');
  } catch (err) {
    toast(err.status === 409 ? 'The config changed elsewhere — reload the page and try again.' : err.message, 'error');
  }
  refreshServers(api.get).catch(() => {});
}

async function test(c, d) {
  d.testOut.className = 'test-out busy';
  d.testOut.textContent = `Testing ${c.name}…`;
  try {
    const r = await api.post(api.serverPath(c.name, '/test'), {});
    d.testOut.className = `test-out ${r.ok ? 'ok' : 'bad'}`;
    d.testOut.textContent = r.ok
      ? `Ready in ${formatMs(r.ready_ms)} · ${r.tools} tool${r.tools === 1 ? '' : 's'} · definitions ${formatBytes(r.definition_bytes)}`
      : `Test failed: ${r.error || 'unknown error'}`;
  } catch (err) {
    d.testOut.className = 'test-out bad';
    d.testOut.textContent = `Test failed: ${err.message}`;
  }
}

async function login(c) {
  const out = c.d.testOut;
  out.className = 'test-out busy';
  out.textContent = `Starting the login of ${c.name}…`;
  try {
    const r = await api.post(api.serverPath(c.name, '/login'), {});
    // Cross-origin-opener-policy keeps the login page from reaching this one.
    const w = window.open(r.authorization_url, '_blank');
    out.className = 'test-out';
    replace(out, w ? 'Finish the login in the new tab; the status here updates by itself. ' : 'Your browser blocked the new tab. ',
      h('a', { href: r.authorization_url, target: '_blank', rel: 'noopener noreferrer', class: 'link' }, 'Open the login page'));
  } catch (err) {
    out.className = 'test-out bad';
    out.textContent = `Login could not start: ${err.message}`;
  }
}

async function remove(c) {
  const ok = await confirmDialog({
    title: `Remove ${c.name}?`,
    body: `This deletes the server "${c.name}" from your config file (a backup is kept) and stops it. Its tools disappear from every agent.`,
    confirm: 'Remove', danger: true,
  });
  if (!ok) return;
  try {
    await api.del(api.serverPath(c.name), { if_version: store.version });
    toast(`Removed ${c.name}`, 'ok');
    await refreshServers(api.get);
    document.getElementById('add-server').focus();
  } catch (err) {
    toast(err.status === 409 ? 'The config changed elsewhere — reload the page and try again.' : err.message, 'error');
  }
}

/** tick refreshes the "next try in" countdowns. */
function tick() {
  for (const c of entries.values()) {
    if (c.row && c.row.state === 'error' && c.row.next_retry) {
      if (c.card) setBadge(c.card.parts.badge, c);
      if (c.tr) setBadge(c.tr.cells.badge, c);
    }
  }
}

/**
 * setReachable greys the tab when serve stopped answering (the event
 * stream broke): the states shown are the last seen, not live.
 */
function setReachable(ok) {
  if (ok === reachable) return;
  reachable = ok;
  el.panel.classList.toggle('stale', !ok);
  el.stale.hidden = ok;
  replace(el.stale, h('strong', {}, 'serve is unreachable. '),
    'The states below are the last ones seen, not live; the page reconnects by itself once ',
    h('code', {}, 'plughost serve'), ' runs again.');
  render(store.servers);
}

/**
 * discoveryOff says whether search is off: every row says why its tools
 * are visible, and with discovery off that is the reason.
 */
function discoveryOff() {
  return store.servers.length > 0 && store.servers.every((s) => s.deferred_reason === 'discovery off');
}

/** searchOff says what the search preview needs, with the way to Settings. */
function searchOff() {
  return h('p', { class: 'search-off' },
    'Search is off: with discovery off, agents see every tool and there is nothing to search. Turn discovery on (with BM25 or regex search) in ',
    h('button', { type: 'button', class: 'link-button', onclick: () => document.getElementById('tab-settings').click() }, 'Settings'),
    ' to try it.');
}

function searchBox(open) {
  const qid = uid('q');
  const kid = uid('k');
  const out = h('div', { class: 'search-results', role: 'region', 'aria-live': 'polite', 'aria-label': 'Search results' });
  const q = h('input', { id: qid, type: 'search', placeholder: 'e.g. read a file, create issue', autocomplete: 'off' });
  const kind = h('select', { id: kid }, h('option', { value: 'bm25' }, 'BM25 (words)'), h('option', { value: 'regex' }, 'Regex (names and descriptions)'));
  const form = h('form', { class: 'search-form', role: 'search', 'aria-label': 'Try a search' },
    h('div', { class: 'field grow' }, h('label', { for: qid }, 'Query'), q),
    h('div', { class: 'field' }, h('label', { for: kid }, 'Search tool'), kind),
    h('button', { type: 'submit', class: 'btn' }, 'Search'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (discoveryOff()) {
      replace(out, searchOff());
      return;
    }
    if (!q.value.trim()) {
      replace(out, h('p', { class: 'muted' }, 'Type what an agent would look for.'));
      return;
    }
    replace(out, h('p', { class: 'muted' }, 'Searching…'));
    try {
      const r = await api.post('/api/search', { query: q.value, kind: kind.value });
      const tool = r.tool || (kind.value === 'regex' ? 'tool_search_tool_regex' : 'tool_search_tool_bm25');
      if (r.is_error) {
        replace(out, h('p', { class: 'field-error' }, `${tool} would answer with an error: ${r.text}`));
        return;
      }
      const results = r.results || [];
      const unlock = r.would_unlock || [];
      replace(out,
        h('p', { class: 'muted' }, results.length
          ? `In a new session, ${tool} would return ${results.length} tool${results.length === 1 ? '' : 's'}${unlock.length ? ` and unlock ${unlock.length}` : ''}:`
          : `${tool} would find no tool.`),
        results.length ? h('ol', { class: 'result-list' }, results.map((t) => h('li', {},
          h('code', {}, t.name), h('span', { class: 'chip' }, t.server),
          unlock.includes(t.name) ? h('span', { class: 'chip deferred' }, 'would unlock') : null,
          t.description ? h('p', {}, t.description) : null))) : null,
        r.text ? h('details', { class: 'raw' }, h('summary', {}, 'The answer as the model reads it'), h('pre', { class: 'schema' }, r.text)) : null);
    } catch (err) {
      replace(out, discoveryOff() ? searchOff() : h('p', { class: 'field-error' }, err.message));
    }
  });
  return h('details', { class: 'card search-card', open },
    h('summary', {}, h('h2', { id: 'search-title' }, 'Try a search')),
    h('p', { class: 'help' }, 'What the search tools would return in a new agent session — nothing is unlocked.'),
    form, out);
}
