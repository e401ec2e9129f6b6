// Tool trust in a server's detail: the tools waiting for approval, with
// why they wait, what changed since the approved definition, what the
// definition scan found, and the buttons that approve them.

import * as api from './api.js';
import { h, toast, confirmDialog } from './dom.js';
import { lineDiff } from './diff.js';

/** Why a tool waits, in words (quarantine.ReasonText on the Go side). */
const REASONS = {
  changed: 'Its definition changed since it was approved.',
  new: 'It is new since the server was approved.',
  server_not_approved: 'Its server (trust "approve") has not been approved yet.',
  flagged: 'The definition scan flagged it.',
  pins_unavailable: 'The approved definitions could not be read.',
};

/** The definition's fields, in the order shown, and how each is compared. */
const FIELDS = [
  ['title', 'Title', 'text'],
  ['description', 'Description', 'text'],
  ['inputSchema', 'Input schema', 'json'],
  ['outputSchema', 'Output schema', 'json'],
  ['annotations', 'Annotations', 'json'],
];

// Characters that print as nothing (Unicode format characters: zero-width,
// bidi controls, word joiners, BOM, tag characters), other controls, line
// and paragraph separators, and variation selectors: the places an
// instruction hides from a person reading the description.
const INVISIBLE = /(?!\t)[\p{Cf}\p{Cc}\p{Zl}\p{Zp}\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}]/gu;

/**
 * visible returns text as nodes where each invisible character is a
 * marker such as ⟨U+200B⟩, so a hidden instruction shows.
 */
export function visible(text) {
  const s = String(text);
  const out = [];
  let last = 0;
  for (const m of s.matchAll(INVISIBLE)) {
    if (m.index > last) out.push(s.slice(last, m.index));
    const code = m[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0');
    out.push(h('span', { class: 'invisible', title: 'An invisible character' }, `⟨U+${code}⟩`));
    last = m.index + m[0].length;
  }
  if (last < s.length) out.push(s.slice(last));
  return out;
}

/** reasonText explains a reason code. */
export function reasonText(code) {
  return REASONS[code] || code;
}

/**
 * waitingSection returns the "Waiting for approval" section's content for
 * server's quarantined tools; done runs after an approval (to refresh).
 */
export function waitingSection(server, held, done) {
  return [
    h('div', { class: 'waiting-head' },
      h('h3', {}, `Waiting for approval (${held.length})`),
      h('button', { type: 'button', class: 'btn', onclick: () => approve(server, null, done) }, 'Approve all')),
    h('p', { class: 'help' }, 'Agents cannot see, find or call these tools until a person approves them. Read what changed first.'),
    held.map((t) => heldTool(server, t, done)),
  ];
}

/** heldTool is one quarantined tool: why, who approved before, the diff, the findings. */
function heldTool(server, t, done) {
  return h('article', { class: 'held', 'data-tool': t.tool, 'aria-label': `Waiting: ${t.name || t.tool}` },
    h('div', { class: 'held-head' },
      h('code', { class: 'tool-name' }, t.name || t.tool),
      t.name && t.name !== t.tool ? h('span', { class: 'muted' }, ` ← ${t.tool}`) : null,
      h('button', { type: 'button', class: 'btn primary small', onclick: () => approve(server, t.tool, done) }, 'Approve')),
    h('ul', { class: 'reasons' }, (t.reasons || []).map((r) => h('li', {}, reasonText(r)))),
    h('p', { class: 'muted pinned-by' }, pinnedText(t.pinned)),
    h('h4', {}, t.pinned ? 'What changed (− approved, + now)' : 'The definition as the server lists it'),
    definitionDiff(t.pinned ? t.pinned.definition : null, t.current),
    findingList(t.findings));
}

/** pinnedText says who approved the pinned definition and when. */
function pinnedText(pin) {
  if (!pin) return 'Never approved.';
  const by = pin.by === 'first list' ? 'automatically, on the server\'s first list' : `by ${pin.by || 'unknown'}`;
  const at = pin.at ? new Date(pin.at).toLocaleString() : 'an unknown time';
  return `The approved definition was pinned ${by}, ${at}.`;
}

/** definitionDiff shows, field by field, the lines removed and added. */
function definitionDiff(before, after) {
  const blocks = [];
  for (const [key, label, kind] of FIELDS) {
    const a = fieldLines(before, key, kind);
    const b = fieldLines(after, key, kind);
    if (a.join('\n') === b.join('\n') && before) continue;
    if (!a.length && !b.length) continue;
    blocks.push(h('div', { class: 'diff-field', 'data-field': key },
      h('h5', {}, label), diffLines(lineDiff(a, b))));
  }
  if (!blocks.length) return h('p', { class: 'muted' }, 'The definition is the one approved.');
  return blocks;
}

/** fieldLines renders one field of a definition as lines (none when absent). */
function fieldLines(def, key, kind) {
  if (!def || def[key] === undefined || def[key] === null) return [];
  if (kind === 'text' && typeof def[key] === 'string') return def[key].split(/\r\n|\r|\n/);
  return JSON.stringify(def[key], null, 2).split('\n');
}

/** diffLines renders a diff: markers and <del>/<ins>, never colour alone. */
function diffLines(edits) {
  return h('pre', { class: 'diff', tabindex: '0' }, edits.map(({ op, text }) => {
    if (op === '-') return h('del', { class: 'line del' }, h('span', { class: 'op', 'aria-label': 'removed' }, '-'), ' ', visible(text));
    if (op === '+') return h('ins', { class: 'line add' }, h('span', { class: 'op', 'aria-label': 'added' }, '+'), ' ', visible(text));
    return h('span', { class: 'line same' }, h('span', { class: 'op' }, ' '), ' ', visible(text));
  }));
}

/** findingList lists the scan's findings: rule, field, excerpt. */
export function findingList(findings) {
  if (!findings || !findings.length) return null;
  return [
    h('h4', {}, 'Scan findings'),
    h('ul', { class: 'findings' }, findings.map((f) => h('li', {},
      h('span', { class: 'chip warn' }, f.rule), ' in ', h('code', {}, f.field), ': ',
      h('q', { class: 'excerpt' }, visible(f.excerpt || ''))))),
  ];
}

/** approve asks for confirmation and approves tool (or all with null). */
async function approve(server, tool, done) {
  const ok = await confirmDialog({
    title: tool ? `Approve ${tool}?` : `Approve every waiting tool of ${server}?`,
    body: `${tool ? `The definition of "${tool}" shown here` : `The definitions of ${server}'s waiting tools shown here`} become the approved ones: agents can see, find and call ${tool ? 'it' : 'them'} again.`,
    confirm: tool ? 'Approve' : 'Approve all',
  });
  if (!ok) return;
  const body = tool ? { tools: [tool], via: 'dashboard' } : { all: true, via: 'dashboard' };
  try {
    const r = await api.post(api.serverPath(server, '/approve'), body);
    toast(`Approved ${(r.approved || []).join(', ') || 'nothing'} on ${server}`, 'ok');
  } catch (err) {
    toast(err.message, 'error');
  }
  done();
}
