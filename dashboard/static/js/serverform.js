// The add/edit form of a server: every field of the spec (stdio, SSE and
// streamable HTTP), the validator's problems beside their fields, secrets
// kept as "****" unless retyped.

import * as api from './api.js';
import { h, uid, toast } from './dom.js';
import { store, refreshServers } from './store.js';
import { field, inputOf, keyValueEditor, showProblems, showFormError, clearProblems, formErrorBox, numberOrNull } from './forms.js';
import { nameHelp, nameProblem, constrainName } from './names.js';

const TIMEOUTS = [
  ['start_seconds', 'Start (s)'],
  ['initialize_seconds', 'Initialize (s)'],
  ['list_tools_seconds', 'List tools (s)'],
  ['call_seconds', 'Each call (s)'],
];

/**
 * openServerForm opens the dialog. o: {mode: 'add'|'edit', name, server
 * (config JSON as GET /api/servers/{name} gives it), version}.
 */
export function openServerForm(o) {
  const s = structuredClone(o.server || { enabled: true, type: 'stdio' });
  const version = o.version ?? store.version;
  const titleId = uid('dlg');
  const f = {};

  f.name = field({ label: 'Name', path: 'name', value: o.name || '', required: true, help: nameHelp });
  f.type = field({
    label: 'Transport', path: 'type', type: 'select', value: s.type === 'streamable-http' ? 'http' : s.type || '',
    options: [['stdio', 'stdio — run a command'], ['http', 'Streamable HTTP — a URL'], ['sse', 'SSE (legacy) — a URL'], ['', 'Auto-detect from command or URL']],
  });
  f.enabled = field({ label: 'Enabled', path: 'enabled', type: 'checkbox', value: s.enabled !== false });
  f.command = field({ label: 'Command', path: 'command', value: s.command || '', placeholder: 'npx', help: 'Looked up on PATH, or an absolute path.' });
  f.args = field({ label: 'Arguments', path: 'args', type: 'textarea', rows: 3, value: (s.args || []).join('\n'), help: 'One argument per line.' });
  f.env = keyValueEditor({ label: 'Environment variables', path: 'env', entries: s.env, keyLabel: 'Variable', valueLabel: 'Value', addLabel: 'Add variable', help: 'Values are secret: stored ones show as ****; type a new value to replace one.' });
  f.envFile = field({ label: 'Env file', path: 'env_file', value: s.env_file || '', placeholder: '~/.config/server.env', help: 'KEY=value lines, read before "env" (relative to the config file).' });
  f.inherit = field({ label: "Inherit plughost's whole environment", path: 'inherit_env', type: 'checkbox', value: s.inherit_env, help: 'Off: only a safe allowlist (PATH, HOME, …) plus the variables above.' });
  f.url = field({ label: 'URL', path: 'url', type: 'url', value: s.url || '', placeholder: 'https://example.com/mcp' });
  f.headers = keyValueEditor({ label: 'HTTP headers', path: 'headers', entries: s.headers, keyLabel: 'Header', valueLabel: 'Value', addLabel: 'Add header', help: 'Values are secret (e.g. Authorization); stored ones show as ****.' });
  const oa = s.oauth || {};
  f.oauth = field({ label: 'Log in with OAuth', path: 'oauth', type: 'checkbox', value: Boolean(s.oauth), help: 'Browser login; tokens are kept by plughost, never in the config.' });
  f.clientId = field({ label: 'Client ID', path: 'oauth.client_id', value: oa.client_id || '', help: 'Empty: dynamic client registration.' });
  f.clientSecret = field({ label: 'Client secret', path: 'oauth.client_secret', secret: true, value: oa.client_secret || '' });
  f.scopes = field({ label: 'Scopes', path: 'oauth.scopes', value: (oa.scopes || []).join(' '), help: 'Separated by spaces.' });
  f.issuer = field({ label: 'Issuer', path: 'oauth.issuer', value: oa.issuer || '', help: 'Overrides the discovered authorization server.' });
  f.metadata = field({ label: 'Client metadata URL', path: 'oauth.client_metadata_url', value: oa.client_metadata_url || '' });
  f.callbackPort = field({ label: 'Callback port', path: 'oauth.callback_port', type: 'number', min: 0, value: oa.callback_port || '', help: '0 or empty: any free port.' });
  const oauthBox = h('div', { class: 'grid2 nested' }, f.clientId, f.clientSecret, f.scopes, f.issuer, f.metadata, f.callbackPort);

  const deferredName = uid('deferred');
  const current = s.deferred === true ? 'true' : s.deferred === false ? 'false' : '';
  const radio = (value, label, help) => {
    const id = uid('r');
    return h('div', { class: 'radio' },
      h('input', { type: 'radio', id, name: deferredName, value, checked: current === value }),
      h('label', { for: id }, label, h('span', { class: 'help' }, help)));
  };
  f.deferred = h('fieldset', { class: 'field wide', 'data-path': 'deferred' },
    h('legend', {}, 'Tools in agent sessions'),
    h('div', { class: 'radios' },
      radio('', 'Follow the global setting', 'Deferred while discovery is on'),
      radio('false', 'Always visible', 'Listed to the agent from the start'),
      radio('true', 'Deferred', 'Found through the search tools')),
    h('p', { class: 'field-error' }));
  const t = s.timeouts || {};
  f.timeouts = TIMEOUTS.map(([k, label]) => field({ label, path: `timeouts.${k}`, type: 'number', min: 0, step: 'any', value: t[k] ?? '', placeholder: 'default' }));
  f.maxMsg = field({ label: 'Max msg (MB)', path: 'max_message_mb', type: 'number', min: 1, value: s.max_message_mb ?? '', placeholder: 'default' });
  f.includeTools = field({ label: 'Only these tools', path: 'include_tools', type: 'textarea', rows: 2, value: (s.include_tools || []).join('\n'), placeholder: 'get_*', help: 'One glob per line (* ? [a-z]) on the server\'s own tool names. Empty: every tool.' });
  f.excludeTools = field({ label: 'Hide these tools', path: 'exclude_tools', type: 'textarea', rows: 2, value: (s.exclude_tools || []).join('\n'), placeholder: 'delete_*', help: 'One glob per line. Hidden from every client: not listed, searched or callable.' });

  const stdioBox = h('fieldset', { class: 'group' }, h('legend', {}, 'Command'), h('div', { class: 'grid2' }, f.command, f.envFile), f.args, f.env, f.inherit);
  const remoteBox = h('fieldset', { class: 'group' }, h('legend', {}, 'Remote server'), f.url, f.headers, f.oauth, oauthBox);
  const formErr = formErrorBox();
  const form = h('form', { class: 'server-form', novalidate: true },
    h('div', { class: 'dialog-head' },
      h('h2', { id: titleId }, o.mode === 'add' ? 'Add a server' : `Edit ${o.name}`),
      h('button', { type: 'button', class: 'btn ghost icon', 'aria-label': 'Close', onclick: () => dlg.close() }, '✕')),
    h('div', { class: 'dialog-body' },
      h('div', { class: 'grid2' }, f.name, f.type), f.enabled,
      stdioBox, remoteBox, f.deferred,
      h('fieldset', { class: 'group' }, h('legend', {}, 'Tool filters'),
        h('div', { class: 'grid2' }, f.includeTools, f.excludeTools)),
      h('fieldset', { class: 'group' }, h('legend', {}, 'Timeouts and limits'),
        h('p', { class: 'help' }, 'Empty fields use the global values.'),
        h('div', { class: 'grid4' }, f.timeouts, f.maxMsg))),
    h('div', { class: 'dialog-foot' }, formErr,
      h('button', { type: 'button', class: 'btn', onclick: () => dlg.close() }, 'Cancel'),
      h('button', { type: 'submit', class: 'btn primary' }, o.mode === 'add' ? 'Add server' : 'Save changes')));
  const dlg = h('dialog', { class: 'dialog', 'aria-labelledby': titleId }, form);
  dlg.addEventListener('close', () => dlg.remove());

  if (o.mode === 'add') constrainName(inputOf(f.name));
  if (o.mode === 'edit') {
    inputOf(f.name).readOnly = true;
    f.name.querySelector('.help').textContent = 'To rename a server, add it under the new name and remove this one.';
  }
  const sync = () => {
    const type = inputOf(f.type).value;
    stdioBox.hidden = !(type === 'stdio' || type === '');
    remoteBox.hidden = !(type === 'http' || type === 'sse' || type === '');
    oauthBox.hidden = !inputOf(f.oauth).checked;
  };
  inputOf(f.type).addEventListener('change', sync);
  inputOf(f.oauth).addEventListener('change', sync);
  sync();

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearProblems(form);
    const name = inputOf(f.name).value.trim();
    const bad = o.mode === 'add' && nameProblem(name);
    if (bad) {
      showProblems(form, [{ path: 'name', message: bad }], serverKeyOf);
      return;
    }
    const server = collect(s, f, deferredName, form);
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    try {
      if (o.mode === 'add') await api.post('/api/servers', { name, server, if_version: version });
      else await api.put(api.serverPath(o.name), { server, if_version: version });
      dlg.close();
      toast(o.mode === 'add' ? `Added ${name}` : `Saved ${o.name}`, 'ok');
      await refreshServers(api.get);
    } catch (err) {
      handleError(err, form, name, o);
    } finally {
      submit.disabled = false;
    }
  });
  document.body.append(dlg);
  dlg.showModal();
  inputOf(o.mode === 'add' ? f.name : f.type).focus();
}

/** collect builds the server's JSON from the form, on top of its stored entry. */
function collect(orig, f, deferredName, form) {
  const s = structuredClone(orig);
  const val = (w) => inputOf(w).value.trim();
  const type = inputOf(f.type).value;
  const set = (k, v) => {
    const empty = v === '' || v === null || v === undefined || (Array.isArray(v) && v.length === 0) ||
      (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);
    if (empty) delete s[k];
    else s[k] = v;
  };
  set('type', type);
  s.enabled = inputOf(f.enabled).checked;
  const stdio = type === 'stdio' || type === '';
  const remote = type === 'http' || type === 'sse' || type === '';
  set('command', stdio ? val(f.command) : '');
  set('args', stdio ? inputOf(f.args).value.split('\n').map((a) => a.trim()).filter(Boolean) : []);
  set('env', stdio ? f.env.read() : {});
  set('env_file', stdio ? val(f.envFile) : '');
  set('inherit_env', stdio && inputOf(f.inherit).checked ? true : '');
  set('url', remote ? val(f.url) : '');
  set('headers', remote ? f.headers.read() : {});
  if (remote && inputOf(f.oauth).checked) {
    const oa = {};
    const put = (k, v) => { if (v !== '' && v !== null && !(Array.isArray(v) && !v.length)) oa[k] = v; };
    put('client_id', val(f.clientId));
    put('client_secret', inputOf(f.clientSecret).value);
    put('scopes', val(f.scopes).split(/\s+/).filter(Boolean));
    put('issuer', val(f.issuer));
    put('client_metadata_url', val(f.metadata));
    put('callback_port', numberOrNull(inputOf(f.callbackPort)));
    s.oauth = oa;
  } else {
    delete s.oauth;
  }
  const d = form.querySelector(`input[name="${deferredName}"]:checked`).value;
  if (d === '') delete s.deferred;
  else s.deferred = d === 'true';
  const t = {};
  TIMEOUTS.forEach(([k], i) => {
    const n = numberOrNull(inputOf(f.timeouts[i]));
    if (n !== null) t[k] = n;
  });
  set('timeouts', t);
  set('max_message_mb', numberOrNull(inputOf(f.maxMsg)));
  const lines = (w) => inputOf(w).value.split('\n').map((g) => g.trim()).filter(Boolean);
  set('include_tools', lines(f.includeTools));
  set('exclude_tools', lines(f.excludeTools));
  return s;
}

/** keyOf maps a problem's JSON path to the form's data-path keys. */
export function serverKeyOf(path) {
  const keys = api.splitPath(path);
  if (keys[0] === 'tools' && keys[1] === 'mcp' && keys[2] === 'servers') {
    const rest = keys.slice(4);
    return rest.length ? rest : ['name'];
  }
  if (keys[0] === 'name') return ['name'];
  return keys;
}

function handleError(err, form, name, o) {
  if (err.status === 422 || err.problems.length) {
    showProblems(form, err.problems, serverKeyOf, err.message);
  } else if (err.status === 409 && (err.code === 'exists' || /exist/i.test(err.message))) {
    showProblems(form, [{ path: 'name', message: `A server named "${name}" already exists; choose another name.` }], serverKeyOf);
  } else if (err.status === 409) {
    showFormError(form, 'The config changed elsewhere — reload to see the current values (your edits here are lost).',
      h('button', { type: 'button', class: 'btn small', onclick: () => reload(form, o) }, 'Reload'));
  } else {
    showFormError(form, err.message);
  }
}

async function reload(form, o) {
  form.closest('dialog').close();
  if (o.mode === 'add') {
    await refreshServers(api.get);
    openServerForm({ mode: 'add' });
    return;
  }
  try {
    const det = await api.get(api.serverPath(o.name));
    openServerForm({ mode: 'edit', name: o.name, server: det.config, version: det.version });
  } catch (err) {
    toast(err.message, 'error');
  }
}
