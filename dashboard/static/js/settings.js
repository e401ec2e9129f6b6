// The Settings tab: the global MCP settings the dashboard may change, the
// at-least-one-engine rule answered beside its field, and the context cost
// of the current catalog with discovery on and off.

import * as api from './api.js';
import { h, replace, toast, formatBytes } from './dom.js';
import { on, refreshServers } from './store.js';
import { field, inputOf, showProblems, clearProblems, formErrorBox, showFormError, numberOrNull } from './forms.js';

const P = 'tools.mcp';
let panel;
let body;
let costBox;
let version = null;
let loadedSettings = null;
let dirty = false;
let loaded = false;

/** mountSettings builds the tab into p; it loads when first shown and follows "settings" events. */
export function mountSettings(p) {
  panel = p;
  body = h('div', { class: 'settings-body' }, h('p', { class: 'muted' }, 'Loading settings…'));
  costBox = h('section', { class: 'card', 'aria-labelledby': 'cost-title' }, h('h2', { id: 'cost-title' }, 'Context cost'));
  replace(panel,
    h('div', { class: 'panel-head' },
      h('div', {}, h('h1', {}, 'Settings'), h('p', { class: 'sub' }, 'Saved to your config file and applied at once, without a restart.'))),
    h('div', { class: 'settings-layout' }, body, costBox));
  on('tab', (name) => { if (name === 'settings' && !loaded) load(); });
  on('settings', (data) => {
    if (!loaded) return;
    if (!dirty) load();
    else if (!data || data.version !== version) changedElsewhere();
  });
  on('servers', () => { if (loaded) loadCost(); });
}

function reloadButton() {
  return h('button', { type: 'button', class: 'btn small', onclick: () => { dirty = false; load(); } }, 'Reload');
}

/** changedElsewhere tells a user with unsaved edits that the file changed. */
function changedElsewhere() {
  const form = body.querySelector('form');
  if (form) showFormError(form, 'The settings changed elsewhere — reload to see them (your edits here are lost).', reloadButton());
}

let loads = 0;

async function load() {
  const seq = ++loads;
  try {
    const r = await api.get('/api/settings');
    if (seq !== loads) return; // a newer load answers
    if (dirty) {
      // Edited while this was loading: keep the edits (and the version
      // they started from, so a save of them is checked against the file).
      if (r.version !== version) changedElsewhere();
      return;
    }
    loaded = true;
    version = r.version ?? null;
    loadedSettings = r.settings || {};
    dirty = false;
    render(loadedSettings);
    renderCost(r.context_cost);
  } catch (err) {
    replace(body, h('p', { class: 'field-error' }, `Settings could not be loaded: ${err.message}`),
      h('button', { type: 'button', class: 'btn', onclick: load }, 'Try again'));
  }
}

async function loadCost() {
  try {
    renderCost(await api.get('/api/context-cost'));
  } catch {
    // The settings view keeps the last figures.
  }
}

/** artifactKey is the key the API uses for artifact retention. */
function artifactKey(s) {
  return 'artifact_retention' in s && !('artifacts' in s) ? 'artifact_retention' : 'artifacts';
}

function render(s) {
  const d = s.discovery || {};
  const ak = artifactKey(s);
  const a = s[ak] || {};
  const f = {
    enabled: field({ label: 'MCP enabled', path: `${P}.enabled`, type: 'checkbox', value: s.enabled, help: 'Off: no server is started and agents get no MCP tools.' }),
    discovery: field({ label: 'Discovery enabled', path: `${P}.discovery.enabled`, type: 'checkbox', value: d.enabled, help: 'Hide deferred servers\' tools behind the search tools; an agent unlocks what it finds.' }),
    ttl: field({ label: 'Unlocked for (turns)', path: `${P}.discovery.ttl`, type: 'number', min: 1, value: d.ttl ?? '' }),
    max: field({ label: 'Max search results', path: `${P}.discovery.max_search_results`, type: 'number', min: 1, value: d.max_search_results ?? '' }),
    bm25: field({ label: 'BM25 search tool (tool_search_tool_bm25)', path: `${P}.discovery.use_bm25`, type: 'checkbox', value: d.use_bm25 }),
    regex: field({ label: 'Regex search tool (tool_search_tool_regex)', path: `${P}.discovery.use_regex`, type: 'checkbox', value: d.use_regex }),
    inline: field({ label: 'Max inline text (characters)', path: `${P}.max_inline_text_chars`, type: 'number', min: 1, value: s.max_inline_text_chars ?? '', help: 'Longer results are cut for the model and kept whole as an artifact.' }),
    workspace: field({ label: 'Workspace', path: `${P}.workspace`, value: s.workspace ?? '', help: 'Where artifacts of oversized results are written.' }),
    age: field({ label: 'Keep artifacts for (hours)', path: `${P}.artifacts.max_age_hours`, type: 'number', min: 0, step: 'any', value: a.max_age_hours ?? '' }),
    total: field({ label: 'Artifacts total size (MB)', path: `${P}.artifacts.max_total_mb`, type: 'number', min: 0, step: 'any', value: a.max_total_mb ?? '' }),
  };
  const engines = h('fieldset', { class: 'field wide', 'data-path': `${P}.discovery.engines` },
    h('legend', {}, 'Search tools'), h('p', { class: 'help' }, 'With discovery on, at least one must be on.'), f.bm25, f.regex);
  const formErr = formErrorBox();
  const form = h('form', { class: 'settings-form', novalidate: true, 'aria-label': 'Settings' },
    h('section', { class: 'card' }, h('h2', {}, 'General'), f.enabled, f.inline, f.workspace),
    h('section', { class: 'card' }, h('h2', {}, 'Discovery'), f.discovery, h('div', { class: 'grid2' }, f.ttl, f.max), engines),
    h('section', { class: 'card' }, h('h2', {}, 'Artifact retention'), h('div', { class: 'grid2' }, f.age, f.total)),
    h('div', { class: 'form-foot' }, formErr,
      h('button', { type: 'button', class: 'btn', onclick: () => { dirty = false; load(); } }, 'Discard changes'),
      h('button', { type: 'submit', class: 'btn primary' }, 'Save settings')));
  form.addEventListener('input', () => { dirty = true; });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearProblems(form);
    const next = {
      enabled: inputOf(f.enabled).checked,
      discovery: {
        ...d,
        enabled: inputOf(f.discovery).checked,
        ttl: numberOrNull(inputOf(f.ttl)),
        max_search_results: numberOrNull(inputOf(f.max)),
        use_bm25: inputOf(f.bm25).checked,
        use_regex: inputOf(f.regex).checked,
      },
      max_inline_text_chars: numberOrNull(inputOf(f.inline)),
      workspace: inputOf(f.workspace).value.trim(),
      [ak]: { ...a, max_age_hours: numberOrNull(inputOf(f.age)), max_total_mb: numberOrNull(inputOf(f.total)) },
    };
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    try {
      const r = await api.put('/api/settings', { settings: next, if_version: version });
      version = r.version ?? version;
      loadedSettings = r.settings || next;
      dirty = false;
      toast('Settings saved and applied', 'ok');
      render(loadedSettings);
      if (r.context_cost) renderCost(r.context_cost);
      else loadCost();
      refreshServers(api.get).catch(() => {});
    } catch (err) {
      if (err.status === 422) showProblems(form, err.problems, settingsKeyOf, err.message);
      else if (err.status === 409) showFormError(form, 'Changed elsewhere — reload to see the current settings (your edits here are lost).', reloadButton());
      else showFormError(form, err.message);
    } finally {
      submit.disabled = false;
    }
  });
  replace(body, form);
}

/** settingsKeyOf maps a problem path to the settings form's data-path keys. */
function settingsKeyOf(path) {
  const keys = api.splitPath(path);
  if (keys[0] === 'settings') return ['tools', 'mcp', ...keys.slice(1)].map((k) => (k === 'artifact_retention' ? 'artifacts' : k));
  return keys.map((k) => (k === 'artifact_retention' ? 'artifacts' : k));
}

function renderCost(cost) {
  const costs = (cost && cost.costs) || [];
  replace(costBox,
    h('h2', { id: 'cost-title' }, 'Context cost'),
    h('p', { class: 'help' }, 'What the tool definitions of the current catalog cost an agent at the start of every session.'),
    costs.length
      ? h('table', { class: 'cost-table' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Setting'), h('th', { scope: 'col', class: 'num' }, 'Tools'),
          h('th', { scope: 'col', class: 'num' }, 'Size'), h('th', { scope: 'col', class: 'num' }, '≈ Tokens'))),
        h('tbody', {}, costs.map((c) => h('tr', {},
          h('th', { scope: 'row' }, c.setup), h('td', { class: 'num' }, String(c.tools)),
          h('td', { class: 'num' }, formatBytes(c.bytes)), h('td', { class: 'num' }, (c.estimated_tokens ?? 0).toLocaleString('en-US'))))))
      : h('p', { class: 'muted' }, 'No figures yet.'));
}

