// The Activity tab: the newest audit records (GET /api/activity), polled
// every few seconds while the tab and the page are visible, filtered in
// the page by server, client, outcome and text. A server's name opens its
// card on the Servers tab.

import * as api from './api.js';
import { h, replace, formatBytes, formatMs } from './dom.js';
import { on } from './store.js';

/** POLL_MS is how often the shown tab asks for new records. */
const POLL_MS = 3000;
/** LIMIT is how many of the newest records the tab asks for. */
const LIMIT = 500;
const APPROVE = 'plughost/approve';

let panel;
let selectTab;
let state = { records: [], enabled: true, dir: '', error: '' };
let shown = false;
let timer = null;
const f = {};

/** mountActivity builds the tab into p; it polls only while it is shown. */
export function mountActivity(p, opts) {
  panel = p;
  selectTab = opts.selectTab;
  f.server = h('select', { id: 'activity-server' }, h('option', { value: '' }, 'All servers'));
  f.client = h('select', { id: 'activity-client' }, h('option', { value: '' }, 'All clients'));
  f.outcome = h('select', { id: 'activity-outcome' },
    h('option', { value: '' }, 'All outcomes'), h('option', { value: 'ok' }, 'ok'),
    h('option', { value: '!ok' }, 'Not ok'), h('option', { value: 'approve' }, 'Approvals'));
  f.text = h('input', { id: 'activity-text', type: 'search', placeholder: 'tool, session, outcome…', autocomplete: 'off', spellcheck: 'false' });
  f.count = h('p', { class: 'sub', id: 'activity-count', role: 'status', 'aria-live': 'polite' });
  f.body = h('div', { class: 'activity-body' });
  for (const el of [f.server, f.client, f.outcome]) el.addEventListener('change', render);
  f.text.addEventListener('input', render);
  replace(panel,
    h('div', { class: 'panel-head' },
      h('div', {}, h('h1', {}, 'Activity'),
        h('p', { class: 'sub' }, 'Every call through plughost, newest first — who, what, how long, how it ended. Never the arguments or the result.'))),
    h('div', { class: 'filters', role: 'search', 'aria-label': 'Filter the activity' },
      label('Server', f.server), label('Client', f.client), label('Outcome', f.outcome), label('Search', f.text)),
    f.count, f.body);
  on('tab', (name) => {
    shown = name === 'activity';
    if (shown) poll();
    else stop();
  });
  document.addEventListener('visibilitychange', () => {
    if (shown && !document.hidden) poll();
    else stop();
  });
}

function label(text, control) {
  return h('label', { class: 'filter', for: control.id }, h('span', {}, text), control);
}

function stop() {
  clearTimeout(timer);
  timer = null;
}

async function poll() {
  stop();
  try {
    const a = await api.get(`/api/activity?limit=${LIMIT}`);
    state = { records: a.records || [], enabled: a.enabled, dir: a.dir || '', error: '' };
  } catch (err) {
    state = { ...state, error: err.message };
  }
  render();
  if (shown && !document.hidden) timer = setTimeout(poll, POLL_MS);
}

/** fillOptions keeps a select's choices to the values seen, keeping its selection. */
function fillOptions(select, values) {
  const keep = select.value;
  const first = select.options[0];
  const names = [...new Set(values)].filter((v) => v !== '').sort();
  if (keep && !names.includes(keep)) names.push(keep);
  // Rebuilt only when the choices change, so an open list stays open.
  const key = JSON.stringify(names);
  if (select.dataset.choices === key) return;
  select.dataset.choices = key;
  replace(select, first, names.map((v) => h('option', { value: v }, v)));
  select.value = keep;
}

function matches(r) {
  if (f.server.value && r.server !== f.server.value) return false;
  if (f.client.value && r.client !== f.client.value) return false;
  const o = f.outcome.value;
  if (o === 'ok' && r.outcome !== 'ok') return false;
  if (o === '!ok' && (r.outcome === 'ok' || r.method === APPROVE)) return false;
  if (o === 'approve' && r.method !== APPROVE) return false;
  const q = f.text.value.trim().toLowerCase();
  if (!q) return true;
  return [r.client, r.session, r.server, r.method, r.name, r.outcome].some((v) => (v || '').toLowerCase().includes(q));
}

function render() {
  const recs = state.records.filter((r) => !r.dropped);
  fillOptions(f.server, recs.map((r) => r.server));
  fillOptions(f.client, recs.map((r) => r.client));
  if (!state.enabled) {
    f.count.textContent = '';
    delete f.body.dataset.key;
    replace(f.body, h('p', { class: 'muted' }, 'The audit log is off (tools.mcp.audit), so no calls are recorded.'));
    return;
  }
  const rows = recs.filter(matches);
  const dropped = state.records.filter((r) => r.dropped).reduce((n, r) => n + r.dropped, 0);
  f.count.textContent = `${rows.length} of ${recs.length} recent calls` +
    (dropped ? ` · ${dropped} not recorded (the writer fell behind)` : '') +
    (state.error ? ` · not updated: ${state.error}` : '');
  if (recs.length === 0) {
    delete f.body.dataset.key;
    replace(f.body, h('p', { class: 'muted' }, 'No calls yet. Calls through /mcp, the API or the CLI appear here within seconds.'));
    return;
  }
  // Redrawn only when what it shows changed: a poll that brought nothing
  // new leaves the table, and the keyboard focus in it, alone.
  const key = JSON.stringify(rows.map((r) => [r.time, r.session, r.server, r.method, r.name, r.outcome, r.duration_ms]));
  if (f.body.dataset.key === key) return;
  f.body.dataset.key = key;
  replace(f.body, h('div', { class: 'table-wrap' },
    h('table', { class: 'activity-table' },
      h('caption', { class: 'sr-only' }, 'Recent calls, newest first'),
      h('thead', {}, h('tr', {}, ['Time', 'Client', 'Session', 'Server', 'Call', 'Duration', 'Outcome', 'Bytes in / out']
        .map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rows.map(row)))));
}

function row(r) {
  const approval = r.method === APPROVE;
  const t = new Date(r.time);
  return h('tr', { 'data-outcome': r.outcome, class: approval ? 'approval' : r.outcome === 'ok' ? '' : 'not-ok' },
    h('td', { class: 'time' }, h('time', { datetime: r.time, title: r.time }, t.toLocaleTimeString())),
    h('td', {}, r.client || '–'),
    h('td', { class: 'mono', title: r.session || '' }, r.session ? r.session.slice(0, 8) : '–'),
    h('td', {}, r.server ? h('button', { type: 'button', class: 'linkish server-link', 'data-server': r.server,
      onclick: () => openServer(r.server) }, r.server) : '–'),
    h('td', {}, approval ? h('span', { class: 'chip' }, 'Approval') : h('span', { class: 'mono method' }, r.method),
      ' ', h('span', { class: 'mono' }, r.name || '')),
    h('td', { class: 'num' }, formatMs(r.duration_ms)),
    h('td', {}, outcome(r)),
    h('td', { class: 'num' }, `${formatBytes(r.bytes_in)} / ${formatBytes(r.bytes_out)}`));
}

function outcome(r) {
  if (r.method === APPROVE) return h('span', { class: 'badge ok' }, 'approved');
  const text = r.code ? `${r.outcome} (${r.code})` : r.outcome;
  return h('span', { class: `badge ${r.outcome === 'ok' ? 'ok' : 'bad'}` }, r.outcome === 'ok' ? 'ok' : `✕ ${text}`);
}

/** openServer shows the server's card on the Servers tab, opened and in view. */
function openServer(name) {
  selectTab('servers');
  const find = () => document.querySelector(`#panel-servers [data-name="${CSS.escape(name)}"]`);
  const open = (el) => {
    el.scrollIntoView({ block: 'start' });
    const toggle = el.querySelector('[aria-expanded="false"]');
    if (toggle) toggle.click();
    (el.querySelector('[aria-expanded]') || el).focus();
  };
  const el = find();
  if (el) {
    open(el);
    return;
  }
  // The list may still be rendering (or the server is beyond the page).
  requestAnimationFrame(() => {
    const later = find();
    if (later) open(later);
  });
}
