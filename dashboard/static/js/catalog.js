// The Catalog tab: one-click presets; credentials are prompted at install
// (password inputs), sent once, and masked by the API afterwards.

import * as api from './api.js';
import { h, replace, uid, toast } from './dom.js';
import { store, on, refreshServers } from './store.js';
import { field, inputOf, showProblems, clearProblems, formErrorBox, showFormError } from './forms.js';
import { nameHelp, nameProblem, constrainName } from './names.js';

let grid;
let status; // loading, failure and "no match": beside the list, which holds presets only
let presets = [];
let loaded = false;
let query = '';
let selectTabFn = () => {};

/** mountCatalog builds the tab into panel; presets load when it is first shown. */
export function mountCatalog(panel, { selectTab }) {
  selectTabFn = selectTab;
  const fid = uid('filter');
  grid = h('div', { class: 'catalog-grid', role: 'list', 'aria-label': 'Presets' });
  status = h('div', { class: 'catalog-status', role: 'status' });
  const filter = h('input', { id: fid, type: 'search', placeholder: 'Filter presets', autocomplete: 'off' });
  filter.addEventListener('input', () => {
    query = filter.value.trim().toLowerCase();
    render();
  });
  replace(panel,
    h('div', { class: 'panel-head' },
      h('div', {}, h('h1', {}, 'Catalog'), h('p', { class: 'sub' }, 'Popular MCP servers, ready to install. Credentials are asked for at install and stored masked.')),
      h('div', { class: 'field compact' }, h('label', { for: fid, class: 'sr-only' }, 'Filter presets'), filter)),
    status, grid);
  on('tab', (name) => { if (name === 'catalog' && !loaded) load(); });
  on('servers', () => { if (loaded) render(); });
}

async function load() {
  replace(grid);
  replace(status, h('p', { class: 'muted' }, 'Loading the catalog…'));
  try {
    const body = await api.get('/api/catalog');
    presets = body.presets || [];
    loaded = true;
    render();
  } catch (err) {
    replace(status, h('p', { class: 'field-error' }, `The catalog could not be loaded: ${err.message}`),
      h('button', { type: 'button', class: 'btn', onclick: load }, 'Try again'));
  }
}

function render() {
  const shown = presets.filter((p) => !query || `${p.name} ${p.id} ${p.description}`.toLowerCase().includes(query));
  const installed = new Set(store.servers.map((s) => s.name));
  replace(grid, ...shown.map((p) => card(p, installed.has(p.id))));
  replace(status, shown.length ? null : h('p', { class: 'muted' }, 'No preset matches.'));
}

function card(p, installed) {
  const titleId = uid('preset');
  const creds = p.credentials || [];
  return h('article', { class: 'preset', role: 'listitem', 'aria-labelledby': titleId, 'data-preset': p.id },
    h('div', { class: 'preset-head' },
      h('h2', { id: titleId }, p.name || p.id),
      h('span', { class: 'chip' }, { stdio: 'stdio', http: 'HTTP', sse: 'SSE' }[p.transport] || p.transport)),
    h('p', { class: 'preset-desc' }, p.description || ''),
    h('p', { class: 'preset-needs' }, creds.length
      ? `Needs: ${creds.map((c) => c.label || c.key).join(', ')}`
      : 'No credentials needed'),
    h('div', { class: 'preset-foot' },
      p.homepage ? h('a', { href: p.homepage, target: '_blank', rel: 'noopener noreferrer', class: 'link' }, 'Homepage') : h('span'),
      installed ? h('span', { class: 'chip ok' }, 'Installed') : null,
      h('button', { type: 'button', class: 'btn primary small', 'aria-label': `Install ${p.name || p.id}`, onclick: () => openInstall(p) }, 'Install')));
}

/** openInstall asks for the name, credentials and arguments, then installs. */
function openInstall(p) {
  const titleId = uid('dlg');
  const taken = new Set(store.servers.map((s) => s.name));
  let name = p.id;
  for (let i = 2; taken.has(name); i += 1) name = `${p.id}-${i}`;
  const nameField = field({ label: 'Server name', path: 'name', value: name, required: true, help: nameHelp });
  constrainName(inputOf(nameField));
  const credFields = (p.credentials || []).map((c) => [c, field({
    label: c.label || c.key, path: `credentials.${c.key}`, secret: c.secret !== false, required: c.required,
    help: [c.help, `Stored as ${c.kind === 'header' ? 'the header' : 'the variable'} ${c.key}, masked afterwards.`].filter(Boolean).join(' '),
  })]);
  const argFields = (p.arguments || []).map((a) => [a, field({
    label: a.label || a.key, path: `arguments.${a.key}`, required: a.required,
    type: a.kind === 'list' ? 'textarea' : 'text', rows: 2,
    value: Array.isArray(a.default) ? a.default.join('\n') : a.default ?? '',
    help: [a.help, a.kind === 'list' ? 'One per line.' : null].filter(Boolean).join(' '),
  })]);
  const formErr = formErrorBox();
  const form = h('form', { novalidate: true },
    h('div', { class: 'dialog-head' },
      h('h2', { id: titleId }, `Install ${p.name || p.id}`),
      h('button', { type: 'button', class: 'btn ghost icon', 'aria-label': 'Close', onclick: () => dlg.close() }, '✕')),
    h('div', { class: 'dialog-body' },
      h('p', { class: 'muted' }, p.description || ''),
      nameField,
      credFields.length ? h('fieldset', { class: 'group' }, h('legend', {}, 'Credentials'), credFields.map(([, f]) => f)) : null,
      argFields.length ? h('fieldset', { class: 'group' }, h('legend', {}, 'Options'), argFields.map(([, f]) => f)) : null),
    h('div', { class: 'dialog-foot' }, formErr,
      h('button', { type: 'button', class: 'btn', onclick: () => dlg.close() }, 'Cancel'),
      h('button', { type: 'submit', class: 'btn primary' }, 'Install')));
  const dlg = h('dialog', { class: 'dialog narrow', 'aria-labelledby': titleId }, form);
  dlg.addEventListener('close', () => dlg.remove());
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearProblems(form);
    const credentials = {};
    for (const [c, f] of credFields) {
      const v = inputOf(f).value;
      if (v !== '') credentials[c.key] = v;
    }
    const args = {};
    for (const [a, f] of argFields) {
      const v = inputOf(f).value.trim();
      if (v === '') continue;
      args[a.key] = a.kind === 'list' ? v.split('\n').map((x) => x.trim()).filter(Boolean) : v;
    }
    const serverName = inputOf(nameField).value.trim();
    const bad = nameProblem(serverName);
    if (bad) {
      showProblems(form, [{ path: 'name', message: bad }], (x) => [x]);
      return;
    }
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    try {
      await api.post(`/api/catalog/${encodeURIComponent(p.id)}/install`, { name: serverName, credentials, arguments: args, if_version: store.version });
      dlg.close();
      toast(`Installed ${serverName}; it is starting`, 'ok');
      await refreshServers(api.get);
      selectTabFn('servers', true);
      document.querySelector(`.server-card[data-name="${CSS.escape(serverName)}"] .card-toggle`)?.focus();
    } catch (err) {
      if (err.status === 422) {
        showProblems(form, err.problems, (path) => {
          const keys = api.splitPath(path);
          if (keys[0] === 'tools' && keys[2] === 'servers') return keys.length === 4 ? ['name'] : [];
          return keys;
        }, err.message);
      } else if (err.status === 409 && (err.code === 'exists' || /exist/i.test(err.message))) {
        showProblems(form, [{ path: 'name', message: `A server named "${serverName}" already exists; choose another name.` }], (x) => [x]);
      } else if (err.status === 409) {
        showFormError(form, 'The config changed elsewhere — reload the page and try again.');
      } else {
        showFormError(form, err.message);
      }
    } finally {
      submit.disabled = false;
    }
  });
  document.body.append(dlg);
  dlg.showModal();
  const firstCred = credFields.length ? inputOf(credFields[0][1]) : inputOf(nameField);
  firstCred.focus();
}
