// Tiny DOM helpers: build elements without innerHTML, so no value from the
// API is ever parsed as markup.

/**
 * h builds an element: h('button', {class: 'btn', onclick: f}, 'Save').
 * Attributes starting with "on" become listeners; null/false are skipped;
 * children may be strings, nodes, arrays, null.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** svg builds an SVG element the same way. */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2), v);
    } else if (k === 'value' && 'value' in el) {
      el.value = v;
    } else if (k === 'checked' || k === 'selected' || k === 'disabled' || k === 'hidden') {
      el[k] = Boolean(v);
      if (k === 'disabled' || k === 'hidden') el.setAttribute(k, '');
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** replace empties el and appends children. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let ids = 0;
/** uid returns a new element id with prefix. */
export function uid(prefix = 'id') {
  ids += 1;
  return `${prefix}-${ids}`;
}

/** toast shows a short message in the live region. kind: info|ok|error. */
export function toast(message, kind = 'info') {
  const box = document.getElementById('toasts');
  const t = h('div', { class: `toast ${kind}` }, message);
  box.append(t);
  setTimeout(() => t.remove(), kind === 'error' ? 9000 : 4500);
}

/** formatBytes renders a byte count: 980 B, 12.4 kB, 3.1 MB. */
export function formatBytes(n) {
  if (n === undefined || n === null) return '–';
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${(n / 1000).toFixed(1)} kB`;
  return `${(n / 1e6).toFixed(1)} MB`;
}

/** formatMs renders milliseconds: 0.4 ms, 12 ms, 1.3 s. */
export function formatMs(ms) {
  if (ms === undefined || ms === null || Number.isNaN(ms)) return '–';
  if (ms < 1) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** untilText renders how long until an ISO time: "in 4 s", "now". */
export function untilText(iso) {
  const left = Math.round((Date.parse(iso) - Date.now()) / 1000);
  if (!(left > 0)) return 'now';
  if (left < 90) return `in ${left} s`;
  return `in ${Math.round(left / 60)} min`;
}

/**
 * confirmDialog asks a yes/no question in a modal dialog and resolves to
 * true when the user confirms.
 */
export function confirmDialog({ title, body, confirm = 'OK', danger = false }) {
  return new Promise((resolve) => {
    const titleId = uid('dlg');
    const dlg = h('dialog', { class: 'dialog small', 'aria-labelledby': titleId },
      h('form', { method: 'dialog' },
        h('h2', { id: titleId }, title),
        h('p', {}, body),
        h('div', { class: 'actions' },
          h('button', { type: 'submit', value: 'cancel', class: 'btn' }, 'Cancel'),
          h('button', { type: 'submit', value: 'ok', class: danger ? 'btn danger' : 'btn primary' }, confirm))));
    dlg.addEventListener('close', () => {
      resolve(dlg.returnValue === 'ok');
      dlg.remove();
    });
    document.body.append(dlg);
    dlg.showModal();
    dlg.querySelector('button[value="cancel"]').focus();
  });
}
