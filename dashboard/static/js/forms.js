// Form building blocks: labelled fields with a help line and an error line
// each, and the mapping of the API's problems (JSON paths) onto them.

import { h, uid } from './dom.js';

/**
 * field builds a labelled input. o: {label, path, type, value, help,
 * placeholder, options (select), rows (textarea), secret, min, step, required}.
 * The wrapper carries data-path, the key an API problem is shown beside.
 */
export function field(o) {
  const id = uid('f');
  const helpId = `${id}-help`;
  const errId = `${id}-err`;
  const describedBy = [o.help ? helpId : null, errId].filter(Boolean).join(' ');
  let input;
  const common = { id, name: o.name || o.path, 'aria-describedby': describedBy, required: o.required, placeholder: o.placeholder };
  if (o.type === 'select') {
    input = h('select', common, o.options.map(([v, text]) => h('option', { value: v, selected: String(o.value) === v }, text)));
  } else if (o.type === 'textarea') {
    input = h('textarea', { ...common, rows: o.rows || 3, spellcheck: 'false' });
    input.value = o.value ?? '';
  } else if (o.type === 'checkbox') {
    input = h('input', { ...common, type: 'checkbox', checked: Boolean(o.value) });
    return h('div', { class: 'field check', 'data-path': o.path },
      h('div', { class: 'check-row' }, input, h('label', { for: id }, o.label)),
      o.help ? h('p', { class: 'help', id: helpId }, o.help) : null,
      h('p', { class: 'field-error', id: errId }));
  } else {
    input = h('input', {
      ...common, type: o.secret ? 'password' : (o.type || 'text'), min: o.min, step: o.step,
      autocomplete: 'off', spellcheck: 'false', inputmode: o.type === 'number' ? 'decimal' : null,
    });
    input.value = o.value ?? '';
  }
  return h('div', { class: `field${o.wide ? ' wide' : ''}`, 'data-path': o.path },
    h('label', { for: id }, o.label, o.required ? h('span', { class: 'req', 'aria-hidden': 'true' }, ' *') : null),
    input,
    o.help ? h('p', { class: 'help', id: helpId }, o.help) : null,
    h('p', { class: 'field-error', id: errId }));
}

/** inputOf returns the control inside a field wrapper. */
export function inputOf(wrapper) {
  return wrapper.querySelector('input, select, textarea');
}

/** clearProblems removes every error shown in form. */
export function clearProblems(form) {
  for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  for (const el of form.querySelectorAll('.has-error')) el.classList.remove('has-error');
  const general = form.querySelector('.form-error');
  if (general) {
    general.replaceChildren();
    general.hidden = true;
  }
}

/**
 * showProblems shows each problem beside the field whose data-path is the
 * longest prefix of keyOf(problem.path) (keys joined by "."), or in the
 * form's general error box. It focuses the first field in error.
 */
export function showProblems(form, problems, keyOf, fallback) {
  clearProblems(form);
  let first = null;
  const general = [];
  for (const p of problems) {
    const keys = keyOf(p.path || '');
    let target = null;
    for (let n = keys.length; n > 0 && !target; n -= 1) {
      const key = keys.slice(0, n).join('.');
      target = [...form.querySelectorAll('[data-path]')].find((el) => el.dataset.path === key) || null;
    }
    if (!target) {
      general.push(p.path ? `${p.path}: ${p.message}` : p.message);
      continue;
    }
    const err = target.querySelector('.field-error');
    err.textContent = err.textContent ? `${err.textContent} ${p.message}` : p.message;
    target.classList.add('has-error');
    const input = inputOf(target);
    if (input) input.setAttribute('aria-invalid', 'true');
    first = first || input;
  }
  if (fallback && general.length === 0 && problems.length === 0) general.push(fallback);
  if (general.length) showFormError(form, general.join('\n'));
  if (first) first.focus();
  else if (general.length) form.querySelector('.form-error')?.focus();
}

/** showFormError shows a message (and an optional action button) above the form's buttons. */
export function showFormError(form, message, action) {
  const box = form.querySelector('.form-error');
  box.replaceChildren(h('span', {}, message), action || '');
  box.hidden = false;
}

/** formErrorBox is the general error area of a form. */
export function formErrorBox() {
  return h('div', { class: 'form-error', role: 'alert', tabindex: '-1', hidden: true });
}

/**
 * keyValueEditor edits a map (env or headers). Values are password inputs:
 * a stored secret arrives as "****" and is sent back unchanged unless the
 * user types a new one, which the API reads as "keep the stored value".
 */
export function keyValueEditor({ label, path, entries, keyLabel, valueLabel, addLabel, help }) {
  const legendId = uid('kv');
  const rows = h('div', { class: 'kv-rows' });
  const errId = `${legendId}-err`;
  const addRow = (k = '', v = '') => {
    const kid = uid('k');
    const vid = uid('v');
    const row = h('div', { class: 'kv-row', 'data-path': k ? `${path}.${k}` : null },
      h('label', { class: 'sr-only', for: kid }, keyLabel),
      h('input', { id: kid, class: 'kv-key', value: k, placeholder: keyLabel, autocomplete: 'off', spellcheck: 'false' }),
      h('label', { class: 'sr-only', for: vid }, valueLabel),
      h('input', { id: vid, class: 'kv-value', type: 'password', value: v, placeholder: valueLabel, autocomplete: 'new-password', spellcheck: 'false' }),
      h('button', { type: 'button', class: 'btn ghost icon', 'aria-label': `Remove ${keyLabel.toLowerCase()} ${k}`.trim(), onclick: () => row.remove() }, '✕'),
      h('p', { class: 'field-error' }));
    rows.append(row);
    return row;
  };
  for (const [k, v] of Object.entries(entries || {})) addRow(k, v);
  const wrap = h('fieldset', { class: 'field kv wide', 'data-path': path, 'aria-describedby': errId },
    h('legend', { id: legendId }, label),
    help ? h('p', { class: 'help' }, help) : null,
    rows,
    h('button', { type: 'button', class: 'btn ghost small', onclick: () => addRow().querySelector('input').focus() }, `+ ${addLabel}`),
    h('p', { class: 'field-error', id: errId }));
  wrap.read = () => {
    const out = {};
    for (const row of rows.querySelectorAll('.kv-row')) {
      const k = row.querySelector('.kv-key').value.trim();
      if (k) out[k] = row.querySelector('.kv-value').value;
    }
    return out;
  };
  return wrap;
}

/** numberOrNull reads a number input: null when empty. */
export function numberOrNull(input) {
  const v = input.value.trim();
  return v === '' ? null : Number(v);
}
