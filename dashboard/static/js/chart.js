// A small inline SVG chart of a server's per-minute series: bars for calls
// (errors in red on top), a line for p99 latency on its own scale.

import { svg } from './dom.js';
import { formatMs } from './dom.js';

/**
 * chart draws series ([{t, calls, errors, p50_ms, p99_ms}], one per minute)
 * into a width×height SVG. large adds the axis labels.
 */
export function chart(series, { width = 132, height = 32, large = false } = {}) {
  const pts = series || [];
  const pad = large ? { l: 34, r: 40, t: 8, b: 18 } : { l: 1, r: 1, t: 2, b: 1 };
  const iw = width - pad.l - pad.r;
  const ih = height - pad.t - pad.b;
  const maxCalls = Math.max(1, ...pts.map((p) => p.calls || 0));
  const maxLat = Math.max(1, ...pts.map((p) => p.p99_ms || 0));
  const n = Math.max(pts.length, 1);
  const bw = iw / n;
  const total = pts.reduce((s, p) => s + (p.calls || 0), 0);
  const errors = pts.reduce((s, p) => s + (p.errors || 0), 0);
  const label = pts.length
    ? `Calls per minute over the last ${pts.length} minutes: ${total} calls, ${errors} errors, busiest minute ${maxCalls === 1 && total === 0 ? 0 : maxCalls}, highest p99 ${formatMs(maxLat === 1 && !pts.some((p) => p.p99_ms) ? 0 : maxLat)}`
    : 'No calls recorded yet';
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label, class: large ? 'chart large' : 'chart' });
  root.append(svg('title', {}, label));
  root.append(svg('line', { x1: pad.l, x2: pad.l + iw, y1: pad.t + ih + 0.5, y2: pad.t + ih + 0.5, class: 'axis' }));
  pts.forEach((p, i) => {
    const x = pad.l + i * bw + bw * 0.15;
    const w = Math.max(bw * 0.7, 1);
    const ch = ((p.calls || 0) / maxCalls) * ih;
    const eh = ((p.errors || 0) / maxCalls) * ih;
    if (ch > 0) root.append(svg('rect', { x, y: pad.t + ih - ch, width: w, height: ch, rx: large ? 1.5 : 0.5, class: 'bar' }));
    if (eh > 0) root.append(svg('rect', { x, y: pad.t + ih - eh, width: w, height: eh, class: 'bar err' }));
  });
  const line = pts
    .map((p, i) => (p.p99_ms ? `${(pad.l + (i + 0.5) * bw).toFixed(1)},${(pad.t + ih - (p.p99_ms / maxLat) * ih).toFixed(1)}` : null))
    .filter(Boolean);
  if (line.length > 1) root.append(svg('polyline', { points: line.join(' '), class: 'lat' }));
  if (large) {
    root.append(svg('text', { x: pad.l - 6, y: pad.t + 8, class: 'tick end' }, String(maxCalls)));
    root.append(svg('text', { x: pad.l - 6, y: pad.t + ih, class: 'tick end' }, '0'));
    root.append(svg('text', { x: pad.l + iw + 6, y: pad.t + 8, class: 'tick lat-tick' }, formatMs(maxLat)));
    root.append(svg('text', { x: pad.l, y: height - 4, class: 'tick' }, `${pts.length} min ago`));
    root.append(svg('text', { x: pad.l + iw, y: height - 4, class: 'tick end' }, 'now'));
  }
  return root;
}
