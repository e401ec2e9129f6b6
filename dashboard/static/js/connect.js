// The Connect tab: the gateway's address and ready configurations for
// each MCP client (GET /api/connect, the same text `plughost serve`
// prints), the gateway token only when asked (POST /api/connect/token),
// and the gateway's named clients, created (token shown once) and
// revoked through /api/clients.

import * as api from './api.js';
import { h, replace, toast, confirmDialog } from './dom.js';
import { on, store } from './store.js';
import { field, inputOf, showProblems, clearProblems, formErrorBox, showFormError } from './forms.js';

let gatewayBox;
let clientsBox;
let conn = null; // GET /api/connect's answer, or POST /api/connect/token's
let loaded = false;

/** mountConnect builds the tab into p; it loads when first shown. */
export function mountConnect(p) {
  gatewayBox = h('section', { class: 'card', 'aria-labelledby': 'connect-gw-title' }, h('h2', { id: 'connect-gw-title' }, 'Gateway'));
  clientsBox = h('section', { class: 'card', 'aria-labelledby': 'connect-clients-title' }, h('h2', { id: 'connect-clients-title' }, 'Named clients'));
  replace(p,
    h('div', { class: 'panel-head' },
      h('div', {}, h('h1', {}, 'Connect a client'),
        h('p', { class: 'sub' }, 'Point Claude Code, Claude Desktop, Cursor or VS Code at plughost: every server\'s tools through one endpoint.'))),
    h('div', { class: 'connect-layout' }, gatewayBox, clientsBox));
  on('tab', (name) => {
    if (name !== 'connect') return;
    if (!loaded) loadGateway();
    loadClients();
  });
}

async function loadGateway() {
  try {
    conn = await api.get('/api/connect');
    loaded = true;
    renderGateway(null);
  } catch (err) {
    replace(gatewayBox, h('h2', { id: 'connect-gw-title' }, 'Gateway'),
      h('p', { class: 'field-error' }, `The connection details could not be loaded: ${err.message}`),
      h('button', { type: 'button', class: 'btn', onclick: loadGateway }, 'Try again'));
  }
}

async function showToken() {
  try {
    const r = await api.post('/api/connect/token');
    conn = r;
    renderGateway(r.token);
    document.getElementById('connect-token')?.focus();
  } catch (err) {
    toast(`The token could not be shown: ${err.message}`, 'error');
  }
}

function hideToken() {
  loadGateway().then(() => document.getElementById('connect-show-token')?.focus());
}

/** copy puts text on the clipboard and says so beside the button. */
async function copy(text, button) {
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Copy failed: select the text';
  }
  setTimeout(() => { button.textContent = label; }, 2000);
}

function copyButton(text, what) {
  const b = h('button', { type: 'button', class: 'btn small copy', 'aria-label': `Copy ${what}` }, 'Copy');
  b.addEventListener('click', () => copy(text, b));
  return b;
}

function renderGateway(token) {
  const tokenRow = !conn.auth
    ? h('p', { class: 'muted' }, 'Authentication is off (tools.mcp.gateway.auth): clients connect without a token.')
    : token === null
      ? h('div', { class: 'token-row' },
        h('span', { class: 'muted' }, `Token hidden · kept in ${conn.token_file}`),
        h('button', { type: 'button', class: 'btn small', id: 'connect-show-token', onclick: showToken }, 'Show token'))
      : h('div', { class: 'token-row' },
        h('label', { for: 'connect-token', class: 'sr-only' }, 'Gateway token'),
        h('input', { id: 'connect-token', type: 'text', readonly: true, value: token, spellcheck: 'false', autocomplete: 'off' }),
        copyButton(token, 'the gateway token'),
        h('button', { type: 'button', class: 'btn small ghost', onclick: hideToken }, 'Hide token'));
  replace(gatewayBox,
    h('h2', { id: 'connect-gw-title' }, 'Gateway'),
    h('dl', { class: 'connect-kv' },
      h('dt', {}, 'MCP endpoint'), h('dd', {}, h('code', { id: 'connect-url' }, conn.url), ' ', copyButton(conn.url, 'the endpoint')),
      h('dt', {}, 'One server alone'), h('dd', {}, h('code', {}, conn.server_url)),
      h('dt', {}, 'Token'), h('dd', {}, tokenRow)),
    token === null && conn.auth
      ? h('p', { class: 'help' }, 'The snippets below hold <token> (or read the token file) until you show the token.')
      : null,
    conn.clients.map((c) => h('div', { class: 'snippet', 'data-client': c.id },
      h('div', { class: 'snippet-head' },
        h('h3', {}, c.client), h('span', { class: 'muted' }, c.where), copyButton(c.text, `the ${c.client} configuration`)),
      h('pre', { class: 'schema' }, h('code', {}, c.text)))));
}

async function loadClients() {
  try {
    const r = await api.get('/api/clients');
    renderClients(r.clients || []);
  } catch (err) {
    replace(clientsBox, h('h2', { id: 'connect-clients-title' }, 'Named clients'),
      h('p', { class: 'field-error' }, `The clients could not be loaded: ${err.message}`));
  }
}

function renderClients(list, created) {
  const rows = list.map((c) => h('tr', { 'data-client': c.name },
    h('th', { scope: 'row' }, c.name),
    h('td', {}, (c.servers || []).join(', ') || '–'),
    h('td', {}, [...(c.include_tools || []).map((g) => `+${g}`), ...(c.exclude_tools || []).map((g) => `−${g}`)].join(' ') || 'all tools'),
    h('td', {}, h('button', { type: 'button', class: 'btn small danger', 'aria-label': `Revoke client ${c.name}`, onclick: () => revoke(c.name) }, 'Revoke'))));
  replace(clientsBox,
    h('h2', { id: 'connect-clients-title' }, 'Named clients'),
    h('p', { class: 'help' }, 'Each named client has its own token, sees only the servers and tools its entry allows, and is named in the activity log. It cannot open this dashboard or the API.'),
    created ? createdBox(created) : null,
    list.length === 0
      ? h('p', { class: 'muted' }, 'No named clients: every client uses the gateway token.')
      : h('table', { class: 'cost-table clients-table' },
        h('thead', {}, h('tr', {}, ['Name', 'Servers', 'Tools', ''].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, rows)),
    addForm());
}

function createdBox(c) {
  return h('div', { class: 'created-token', role: 'status' },
    h('p', {}, h('strong', {}, `Client "${c.name}" created.`), ' Its token is shown only now: plughost keeps only its sha256.'),
    h('div', { class: 'token-row' },
      h('label', { for: 'client-token', class: 'sr-only' }, `Token of ${c.name}`),
      h('input', { id: 'client-token', type: 'text', readonly: true, value: c.token, spellcheck: 'false', autocomplete: 'off' }),
      copyButton(c.token, `the token of ${c.name}`)));
}

function splitList(s) {
  return s.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean);
}

function addForm() {
  const name = field({ label: 'Name', path: 'name', required: true, placeholder: 'ci-bot' });
  const servers = (store.servers || []).map((s) => s.name);
  const pick = h('fieldset', { class: 'field wide', 'data-path': 'servers' },
    h('legend', {}, 'Servers it may use'),
    servers.length === 0 ? h('p', { class: 'muted' }, 'No servers configured yet.') : null,
    servers.map((s) => h('label', { class: 'check-row' }, h('input', { type: 'checkbox', name: 'servers', value: s }), s)),
    h('p', { class: 'field-error' }));
  const include = field({ label: 'Only tools matching (globs)', path: 'include_tools', placeholder: 'mcp_github_*', help: 'Comma-separated; empty: every tool of its servers.' });
  const exclude = field({ label: 'Hide tools matching (globs)', path: 'exclude_tools', placeholder: 'mcp_github_delete_*' });
  const form = h('form', { class: 'client-form', novalidate: true, 'aria-label': 'Add a named client' },
    h('h3', {}, 'Add a client'), name, pick, include, exclude,
    h('div', { class: 'form-foot' }, formErrorBox(), h('button', { type: 'submit', class: 'btn primary' }, 'Create client')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearProblems(form);
    const body = {
      name: inputOf(name).value.trim(),
      servers: [...pick.querySelectorAll('input:checked')].map((i) => i.value),
      include_tools: splitList(inputOf(include).value),
      exclude_tools: splitList(inputOf(exclude).value),
    };
    try {
      const r = await api.post('/api/clients', body);
      const list = await api.get('/api/clients');
      renderClients(list.clients || [], r);
      document.getElementById('client-token')?.focus();
    } catch (err) {
      if (err.problems.length) showProblems(form, err.problems, (p) => [p]);
      else showFormError(form, err.message);
    }
  });
  return form;
}

async function revoke(name) {
  const ok = await confirmDialog({ title: `Revoke client ${name}?`, body: 'Its token and open sessions stop working at once. This cannot be undone; a new client gets a new token.', confirm: 'Revoke', danger: true });
  if (!ok) return;
  try {
    await api.del(`/api/clients/${encodeURIComponent(name)}`);
    toast(`Client ${name} revoked`, 'ok');
  } catch (err) {
    toast(err.message, 'error');
  }
  loadClients();
}
