// The Inspect tab: pick a server, then run its tools from forms built from
// their schemas, read its resources and get its prompts, as an agent
// would see them.

import * as api from './api.js';
import { formatMs, h, replace, uid } from './dom.js';
import { field, inputOf } from './forms.js';
import { contentBlock, rawJSON, resourceContent } from './mcpcontent.js';
import { schemaForm } from './schemaform.js';
import { on } from './store.js';

/** mountInspect fills panel with the Inspect tab. */
export function mountInspect(panel) {
  const picker = h('select', { id: 'inspect-server', class: 'inspect-server' });
  const body = h('div', { class: 'inspect-body' });
  replace(panel,
    h('div', { class: 'panel-head' },
      h('div', {}, h('h1', {}, 'Inspect'),
        h('p', { class: 'sub' }, 'Run a server’s tools, read its resources and get its prompts, as an agent would.'))),
    h('div', { class: 'field compact' }, h('label', { for: 'inspect-server' }, 'Server'), picker),
    body);
  picker.addEventListener('change', () => showServer(body, picker.value));
  on('tab', (name) => {
    if (name === 'inspect') loadServers(picker, body);
  });
}

async function loadServers(picker, body) {
  let list;
  try {
    list = await api.get('/api/servers?limit=5000');
  } catch (err) {
    replace(body, h('p', { class: 'field-error' }, err.message));
    return;
  }
  const names = (list.servers || []).map((s) => s.name);
  const keep = names.includes(picker.value) ? picker.value : '';
  replace(picker, h('option', { value: '' }, 'Choose a server…'), names.map((n) => h('option', { value: n }, n)));
  picker.value = keep;
  if (!keep) replace(body, h('p', { class: 'muted' }, names.length ? 'Choose a server to inspect.' : 'No servers configured.'));
}

function showServer(body, server) {
  if (!server) {
    replace(body);
    return;
  }
  const tools = h('section', { class: 'inspect-section', 'aria-label': 'Tools' }, h('h2', {}, 'Tools'), h('p', { class: 'muted' }, 'Loading…'));
  const resources = h('section', { class: 'inspect-section', 'aria-label': 'Resources' }, h('h2', {}, 'Resources'), h('p', { class: 'muted' }, 'Loading…'));
  const prompts = h('section', { class: 'inspect-section', 'aria-label': 'Prompts' }, h('h2', {}, 'Prompts'), h('p', { class: 'muted' }, 'Loading…'));
  replace(body, tools, resources, prompts);
  loadTools(tools, server);
  loadResources(resources, server);
  loadPrompts(prompts, server);
}

/** list fills section (under its heading) with items, or says why not. */
function fill(section, title, items, empty) {
  replace(section, h('h2', {}, title), items.length ? items : h('p', { class: 'muted' }, empty));
}

// failed says why a list could not be had: plainly when the server does
// not offer that kind of thing.
function failed(section, title, err) {
  const none = err.code === 'not_offered';
  replace(section, h('h2', {}, title), none
    ? h('p', { class: 'muted' }, `This server offers no ${title.toLowerCase()}.`)
    : h('p', { class: 'field-error' }, err.message));
}

// item is one entry of a list: a summary line that opens its detail.
function item(label, sub, build, key = label) {
  const detail = h('div', { class: 'inspect-detail' });
  const el = h('details', { class: 'inspect-item', 'data-name': key },
    h('summary', {}, h('span', { class: 'inspect-name' }, label), sub ? h('span', { class: 'muted' }, ` ${sub}`) : null),
    detail);
  let built = false;
  el.addEventListener('toggle', () => {
    if (el.open && !built) {
      built = true;
      build(detail);
    }
  });
  return el;
}

async function loadTools(section, server) {
  try {
    const { tools } = await api.get(api.serverPath(server, '/tools'));
    fill(section, 'Tools', tools.map((t) => item(t.server_name, t.description, (d) => toolForm(d, t))),
      'No tools (the server lists none, or it is not running).');
  } catch (err) {
    failed(section, 'Tools', err);
  }
}

function toolForm(detail, tool) {
  let schema = {};
  try {
    schema = typeof tool.input_schema === 'object' ? tool.input_schema : JSON.parse(tool.input_schema);
  } catch {
    // An unreadable schema: the form falls back to no fields.
  }
  const form = schemaForm(schema || {});
  const run = h('button', { type: 'submit', class: 'btn primary' }, 'Run');
  const cancel = h('button', { type: 'button', class: 'btn', disabled: true }, 'Cancel');
  const status = h('p', { class: 'test-out', role: 'status' });
  const out = h('div', { class: 'inspect-result' });
  let ctrl = null;
  cancel.addEventListener('click', () => ctrl && ctrl.abort());
  const el = h('form', { class: 'tool-form', novalidate: true },
    h('p', { class: 'muted' }, 'Agent-facing name: ', h('code', {}, tool.name)),
    form.el, h('div', { class: 'actions' }, run, cancel), status, out);
  el.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = form.values();
    if (v.errors) {
      setStatus(status, 'bad', `Fix the ${v.errors === 1 ? 'field' : `${v.errors} fields`} marked above.`);
      el.querySelector('[aria-invalid="true"]')?.focus();
      return;
    }
    ctrl = new AbortController();
    run.disabled = true;
    cancel.disabled = false;
    replace(out);
    setStatus(status, 'busy', 'Running…');
    const began = performance.now();
    try {
      const res = await api.post(`/api/tools/${encodeURIComponent(tool.name)}/call`, v.args, { signal: ctrl.signal });
      const took = formatMs(performance.now() - began);
      if (res && res.isError) setStatus(status, 'bad', `The tool answered with an error (isError) after ${took}.`);
      else setStatus(status, 'ok', `Done in ${took}.`);
      replace(out, shapedResult(res), rawJSON(res));
    } catch (err) {
      if (err.name === 'AbortError') setStatus(status, 'bad', 'Cancelled: the call was stopped at the server.');
      else setStatus(status, 'bad', refusal(err));
    } finally {
      ctrl = null;
      run.disabled = false;
      cancel.disabled = true;
    }
  });
  detail.append(el);
}

// refusal says why the API refused or failed a call.
function refusal(err) {
  if (err.status === 409) return `Refused (quarantined): ${err.message}`;
  if (err.status === 404) return `Refused (unknown tool): ${err.message}`;
  return err.message;
}

function setStatus(el, kind, text) {
  el.className = `test-out ${kind}`;
  el.textContent = text;
}

// shapedResult is a CallToolResult as the agent sees it: its content
// blocks, then its structuredContent.
function shapedResult(res) {
  const blocks = Array.isArray(res && res.content) ? res.content : [];
  return h('div', { class: `shaped${res && res.isError ? ' is-error' : ''}` },
    h('h3', {}, 'Result as the agent sees it'),
    blocks.length ? blocks.map(contentBlock) : h('p', { class: 'muted' }, 'No content.'),
    res && res.structuredContent !== undefined
      ? [h('h3', {}, 'structuredContent'), h('pre', { class: 'mcp-text' }, JSON.stringify(res.structuredContent, null, 2))]
      : null);
}

// MAX_PAGES bounds the pages of one list the tab follows.
const MAX_PAGES = 20;

// allPages returns member of every page of a list endpoint (following
// nextCursor).
async function allPages(path, member) {
  const out = [];
  let cursor = '';
  for (let i = 0; i < MAX_PAGES; i += 1) {
    const page = await api.get(cursor ? `${path}?cursor=${encodeURIComponent(cursor)}` : path);
    out.push(...(Array.isArray(page && page[member]) ? page[member] : []));
    if (!page || !page.nextCursor || page.nextCursor === cursor) break;
    cursor = page.nextCursor;
  }
  return out;
}

async function loadResources(section, server) {
  let resources;
  let templates;
  try {
    [resources, templates] = await Promise.all([
      allPages(api.serverPath(server, '/resources'), 'resources'),
      allPages(api.serverPath(server, '/resource-templates'), 'resourceTemplates'),
    ]);
  } catch (err) {
    failed(section, 'Resources', err);
    return;
  }
  const items = resources.map((r) =>
    item(r.name || r.uri, r.uri, (d) => readInto(d, server, r.uri), r.uri));
  const tmpls = templates.map((t) =>
    item(t.name || t.uriTemplate, t.uriTemplate, (d) => templateForm(d, server, t), t.uriTemplate));
  fill(section, 'Resources', [...items, tmpls.length ? h('h3', {}, 'Templates') : null, ...tmpls].filter(Boolean),
    'No resources.');
}

async function readInto(detail, server, uri) {
  const out = h('div', { class: 'inspect-result' }, h('p', { class: 'muted' }, 'Reading…'));
  detail.append(out);
  try {
    const res = await api.post(api.serverPath(server, '/resources/read'), { uri });
    const contents = Array.isArray(res.contents) ? res.contents : [];
    replace(out, contents.map((c) => h('div', { class: 'resource-content' },
      h('p', { class: 'muted' }, h('code', {}, String(c.uri ?? '')), c.mimeType ? ` · ${c.mimeType}` : null),
      resourceContent(c))), rawJSON(res));
  } catch (err) {
    replace(out, h('p', { class: 'field-error' }, err.message));
  }
}

// templateForm asks the template's variables (completed where the server
// offers it) and reads the URI they make.
function templateForm(detail, server, tmpl) {
  const vars = [...String(tmpl.uriTemplate).matchAll(/\{[+#./;?&]?([^}]+)\}/g)].flatMap((m) => m[1].split(','));
  const ref = { type: 'ref/resource', uri: tmpl.uriTemplate };
  const fields = vars.map((v) => completedField(server, ref, v.replace(/\*$/, ''), true));
  const out = h('div');
  const form = h('form', { class: 'tool-form', novalidate: true }, fields.map((f) => f.el),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'btn primary' }, 'Read')), out);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    let uri = String(tmpl.uriTemplate);
    for (const f of fields) uri = uri.replace(new RegExp(`\\{[+#./;?&]?${escapeRe(f.name)}\\*?\\}`), encodeURIComponent(f.value()));
    replace(out);
    readInto(out, server, uri);
  });
  detail.append(form);
}

function escapeRe(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// completedField is a text field whose suggestions come from
// completion/complete for ref's argument name, as the user types.
function completedField(server, ref, name, required, description) {
  const listId = uid('complete');
  const el = field({ label: name, path: name, name, required, help: description || null });
  const input = inputOf(el);
  const list = h('datalist', { id: listId });
  input.setAttribute('list', listId);
  el.append(list);
  let timer = null;
  let seq = 0;
  const suggest = () => {
    const mine = ++seq;
    api.post(api.serverPath(server, '/complete'), { ref, argument: { name, value: input.value } })
      .then((res) => {
        if (mine !== seq) return;
        const values = (res && res.completion && Array.isArray(res.completion.values)) ? res.completion.values : [];
        replace(list, values.slice(0, 100).map((v) => h('option', { value: String(v) })));
      })
      .catch(() => {}); // a server without completions: no suggestions
  };
  input.addEventListener('focus', suggest, { once: true });
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(suggest, 150);
  });
  return { name, el, value: () => input.value };
}

async function loadPrompts(section, server) {
  try {
    const prompts = await allPages(api.serverPath(server, '/prompts'), 'prompts');
    fill(section, 'Prompts', prompts.map((p) => item(p.name, p.description, (d) => promptForm(d, server, p))),
      'No prompts.');
  } catch (err) {
    failed(section, 'Prompts', err);
  }
}

function promptForm(detail, server, prompt) {
  const ref = { type: 'ref/prompt', name: prompt.name };
  const fields = (prompt.arguments || []).map((a) => completedField(server, ref, a.name, Boolean(a.required), a.description));
  const status = h('p', { class: 'test-out', role: 'status' });
  const out = h('div', { class: 'inspect-result' });
  const form = h('form', { class: 'tool-form', novalidate: true }, fields.map((f) => f.el),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'btn primary' }, 'Get prompt')), status, out);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const args = {};
    let missing = 0;
    for (const f of fields) {
      const input = inputOf(f.el);
      const need = input.required && f.value() === '';
      f.el.querySelector('.field-error').textContent = need ? 'Required.' : '';
      if (need) {
        input.setAttribute('aria-invalid', 'true');
        missing += 1;
      } else {
        input.removeAttribute('aria-invalid');
        if (f.value() !== '') args[f.name] = f.value();
      }
    }
    if (missing) {
      setStatus(status, 'bad', 'Fill in the required arguments.');
      return;
    }
    setStatus(status, 'busy', 'Getting…');
    replace(out);
    try {
      const res = await api.post(api.serverPath(server, '/prompts/get'), { name: prompt.name, arguments: args });
      setStatus(status, 'ok', res.description ? `Got: ${res.description}` : 'Got the prompt.');
      replace(out, (res.messages || []).map((m) => h('div', { class: 'prompt-message' },
        h('span', { class: 'chip' }, String(m.role ?? '')), contentBlock(m.content))), rawJSON(res));
    } catch (err) {
      setStatus(status, 'bad', err.message);
    }
  });
  detail.append(form);
}
