// A line diff: the longest common subsequence of two texts' lines, as the
// lines kept, removed and added (what lib/linediff does in Go).

/** Beyond this many cells (lines × lines) the LCS table is not built. */
const MAX_CELLS = 4_000_000;

/**
 * lineDiff compares two lists of lines and returns the edit as
 * [{op, text}], op ' ' (in both), '-' (only in a) or '+' (only in b),
 * in order; removals come before the additions that replace them.
 */
export function lineDiff(a, b) {
  // Common head and tail need no table, and are most of a typical edit.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  return [
    ...a.slice(0, head).map(keep),
    ...middle(midA, midB),
    ...a.slice(a.length - tail).map(keep),
  ];
}

function keep(text) {
  return { op: ' ', text };
}

/** middle diffs what lies between the common head and tail. */
function middle(a, b) {
  if (a.length * b.length > MAX_CELLS) {
    // Too big to align: everything old out, everything new in.
    return [...a.map((text) => ({ op: '-', text })), ...b.map((text) => ({ op: '+', text }))];
  }
  const table = lcsTable(a, b);
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(keep(a[i]));
      i += 1;
      j += 1;
    } else if (j >= b.length || (i < a.length && table[i + 1][j] >= table[i][j + 1])) {
      out.push({ op: '-', text: a[i] });
      i += 1;
    } else {
      out.push({ op: '+', text: b[j] });
      j += 1;
    }
  }
  return out;
}

/**
 * lcsTable returns t where t[i][j] is the length of the longest common
 * subsequence of a[i:] and b[j:] (suffixes, so the walk goes forwards).
 */
function lcsTable(a, b) {
  const t = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      t[i][j] = a[i] === b[j] ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
    }
  }
  return t;
}
