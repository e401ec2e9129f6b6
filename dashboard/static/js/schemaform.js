// A form generated from a tool's input schema: one field per property
// (text, number, checkbox, select for an enum), a JSON editor for arrays,
// objects and anything else, and the checks that say what is wrong beside
// the field before anything is sent.

import { h } from './dom.js';
import { field, inputOf } from './forms.js';

/**
 * schemaForm builds the fields of schema (a JSON schema of an object) and
 * returns {el, values}: values() is {args} when every field is valid, else
 * {errors} (it marks the fields as it checks them).
 */
export function schemaForm(schema) {
  const props = (schema && typeof schema.properties === 'object' && schema.properties) || {};
  const required = new Set(Array.isArray(schema && schema.required) ? schema.required : []);
  const names = Object.keys(props);
  if (names.length === 0 && schema && (schema.additionalProperties || schema.patternProperties)) {
    return wholeJSON();
  }
  const fields = names.map((name) => propField(name, props[name] || {}, required.has(name)));
  return {
    el: h('div', { class: 'schema-form' },
      fields.length ? fields.map((f) => f.el) : h('p', { class: 'muted' }, 'This tool takes no arguments.')),
    values() {
      const args = {};
      let errors = 0;
      for (const f of fields) {
        const r = f.read();
        showError(f.el, r.error);
        if (r.error) errors += 1;
        else if (r.value !== undefined) args[f.name] = r.value;
      }
      return errors ? { errors } : { args };
    },
  };
}

// wholeJSON is the form of a schema without properties: the arguments as
// one JSON object.
function wholeJSON() {
  const el = field({ label: 'Arguments (JSON object)', path: 'arguments', type: 'textarea', rows: 6, value: '{}' });
  return {
    el: h('div', { class: 'schema-form' }, el),
    values() {
      const r = parseJSON(inputOf(el).value, 'object', true);
      showError(el, r.error);
      return r.error ? { errors: 1 } : { args: r.value };
    },
  };
}

function showError(wrapper, message) {
  wrapper.querySelector('.field-error').textContent = message || '';
  const input = inputOf(wrapper);
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

// typeOf is a property's one type ("string", …; "" for none or several).
function typeOf(p) {
  if (typeof p.type === 'string') return p.type;
  if (Array.isArray(p.type)) {
    const t = p.type.filter((x) => x !== 'null');
    return t.length === 1 ? t[0] : '';
  }
  return '';
}

function propField(name, p, req) {
  const type = typeOf(p);
  const help = [p.description, p.minimum !== undefined ? `minimum ${p.minimum}` : null,
    p.maximum !== undefined ? `maximum ${p.maximum}` : null].filter(Boolean).join(' · ') || null;
  const base = { label: p.title ? `${p.title} (${name})` : name, path: name, name, required: req, help };
  if (Array.isArray(p.enum) && p.enum.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) {
    const options = [['', req ? 'Choose…' : '(not set)'], ...p.enum.map((v, i) => [String(i), String(v)])];
    const at = p.enum.findIndex((v) => v === p.default);
    const el = field({ ...base, type: 'select', options, value: at >= 0 ? String(at) : '' });
    return { name, el, read: () => readEnum(inputOf(el).value, p.enum, req) };
  }
  if (type === 'string') {
    const el = field({ ...base, value: typeof p.default === 'string' ? p.default : '' });
    return { name, el, read: () => readString(inputOf(el).value, p, req) };
  }
  if (type === 'number' || type === 'integer') {
    const el = field({ ...base, type: 'number', step: type === 'integer' ? '1' : 'any', min: p.minimum,
      value: typeof p.default === 'number' ? String(p.default) : '' });
    return { name, el, read: () => readNumber(inputOf(el).value, p, type === 'integer', req) };
  }
  if (type === 'boolean') {
    if (req) {
      const el = field({ ...base, type: 'checkbox', value: p.default === true });
      return { name, el, read: () => ({ value: inputOf(el).checked }) };
    }
    const value = typeof p.default === 'boolean' ? String(p.default) : '';
    const el = field({ ...base, type: 'select', options: [['', '(not set)'], ['true', 'true'], ['false', 'false']], value });
    return { name, el, read: () => ({ value: inputOf(el).value === '' ? undefined : inputOf(el).value === 'true' }) };
  }
  const want = type === 'array' || type === 'object' ? type : '';
  const initial = p.default !== undefined ? JSON.stringify(p.default, null, 2) : '';
  const el = field({ ...base, type: 'textarea', rows: 4, value: initial,
    help: [help, `JSON${want ? ` ${want}` : ''}`].filter(Boolean).join(' · ') });
  return { name, el, read: () => parseJSON(inputOf(el).value, want, req) };
}

function readEnum(v, values, req) {
  if (v === '') return req ? { error: 'Required: choose one.' } : {};
  return { value: values[Number(v)] };
}

function readString(v, p, req) {
  if (v === '') return req ? { error: 'Required.' } : {};
  if (typeof p.minLength === 'number' && v.length < p.minLength) return { error: `At least ${p.minLength} characters.` };
  if (typeof p.maxLength === 'number' && v.length > p.maxLength) return { error: `At most ${p.maxLength} characters.` };
  if (typeof p.pattern === 'string') {
    try {
      if (!new RegExp(p.pattern, 'u').test(v)) return { error: `Must match ${p.pattern}.` };
    } catch {
      // A pattern JavaScript cannot compile: the server checks it.
    }
  }
  return { value: v };
}

function readNumber(v, p, integer, req) {
  if (v.trim() === '') return req ? { error: 'Required.' } : {};
  const n = Number(v);
  if (!Number.isFinite(n)) return { error: 'Enter a number.' };
  if (integer && !Number.isInteger(n)) return { error: 'Enter a whole number.' };
  if (typeof p.minimum === 'number' && n < p.minimum) return { error: `At least ${p.minimum}.` };
  if (typeof p.maximum === 'number' && n > p.maximum) return { error: `At most ${p.maximum}.` };
  return { value: n };
}

function parseJSON(v, want, req) {
  if (v.trim() === '') return req ? { error: 'Required.' } : {};
  let value;
  try {
    value = JSON.parse(v);
  } catch (err) {
    return { error: `Not valid JSON: ${err.message}` };
  }
  if (want === 'array' && !Array.isArray(value)) return { error: 'Enter a JSON array, like ["a", "b"].' };
  if (want === 'object' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    return { error: 'Enter a JSON object, like {"key": "value"}.' };
  }
  return { value };
}
