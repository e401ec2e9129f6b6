// The Servers tab's list controls: which servers show (a text filter, the
// "problems only" toggle), in which order (the table's sortable columns)
// and in which view (a compact table or cards, remembered in this browser).

/** CARDS_UP_TO is how many servers the cards view is the default for. */
export const CARDS_UP_TO = 12;

const VIEW_KEY = 'plughost.serversView';

/** view returns 'table' or 'cards': the one chosen in this browser, else by count. */
export function view(count) {
  let chosen = null;
  try {
    chosen = localStorage.getItem(VIEW_KEY);
  } catch {
    // Storage blocked: the default by count.
  }
  if (chosen === 'table' || chosen === 'cards') return chosen;
  return count > CARDS_UP_TO ? 'table' : 'cards';
}

/** chooseView remembers the view chosen in this browser. */
export function chooseView(v) {
  try {
    localStorage.setItem(VIEW_KEY, v);
  } catch {
    // Storage blocked: the choice lasts as long as the page.
  }
}

/** problem names what is wrong with a server row, or '' when nothing is. */
export function problem(s) {
  if (s.state === 'error') return 'error';
  if (s.state === 'invalid') return 'invalid config';
  if (s.state === 'needs login') return 'needs login';
  if (s.waiting) return 'waiting for approval';
  if (s.config_error) return 'config entry invalid';
  if (s.throttle) return 'throttled';
  if (s.flagged) return 'flagged by the scan';
  return '';
}

// severity orders states for sorting: the worst first.
const severity = { error: 0, invalid: 1, 'needs login': 2, connecting: 4, 'not probed': 5, connected: 6, disabled: 7 };

function stateRank(s) {
  const r = severity[s.state] ?? 3;
  return r === 6 && problem(s) ? 3 : r;
}

/** COLUMNS are the table's columns: key, heading, how to sort, numeric. */
export const COLUMNS = [
  { key: 'name', label: 'Name', value: (s) => s.name },
  { key: 'state', label: 'State', value: stateRank },
  { key: 'transport', label: 'Transport', value: (s) => s.transport || s.type || '' },
  { key: 'tools', label: 'Tools', value: (s) => (s.state === 'connected' ? s.tools || 0 : -1), num: true },
  { key: 'calls', label: 'Calls', title: 'Calls in the last 15 minutes', value: (s) => s.calls || 0, num: true },
  { key: 'errors', label: 'Errors', title: 'Failed calls in the last 15 minutes', value: (s) => s.errors || 0, num: true },
  { key: 'p99', label: 'p99', title: 'p99 latency of the calls in the last 15 minutes', value: (s) => (s.calls ? s.p99_ms || 0 : -1), num: true },
];

/**
 * select returns the rows that pass the filter text and the problems-only
 * toggle, sorted by {key, dir} (dir 1 ascending, -1 descending; name
 * breaks ties).
 */
export function select(rows, { text = '', problemsOnly = false, sort = { key: 'name', dir: 1 } } = {}) {
  const q = text.trim().toLowerCase();
  const col = COLUMNS.find((c) => c.key === sort.key) || COLUMNS[0];
  const out = rows.filter((s) => (!problemsOnly || problem(s)) && (!q || haystack(s).includes(q)));
  return out.sort((a, b) => {
    const x = col.value(a);
    const y = col.value(b);
    const d = x < y ? -1 : x > y ? 1 : 0;
    return d * sort.dir || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  });
}

function haystack(s) {
  return [s.name, s.state, s.transport || s.type, problem(s), s.description, s.last_error].filter(Boolean).join(' ').toLowerCase();
}
