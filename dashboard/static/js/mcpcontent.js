// Rendering of what a server sends: content blocks of a tool result or a
// prompt message, and the contents of a resource read. Every value goes
// into the DOM as text; an image only as a data: URI of an image type the
// page's CSP allows.

import { h } from './dom.js';

/** IMAGE_TYPES are the image types shown inline (never SVG). */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);

/** image is an <img> of base64 data of mime, or a note why not. */
export function image(data, mime, alt) {
  if (!IMAGE_TYPES.has(String(mime).toLowerCase()) || !/^[A-Za-z0-9+/]*={0,2}$/.test(data || '')) {
    return h('p', { class: 'muted' }, `An image of type ${mime || 'unknown'} (not shown).`);
  }
  return h('img', { class: 'mcp-image', src: `data:${mime};base64,${data}`, alt: alt || 'image from the server' });
}

/** pretty is text as JSON pretty-printed when it parses, else as is. */
export function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** contentBlock renders one content block (text, image, audio, resource_link, resource). */
export function contentBlock(c) {
  if (!c || typeof c !== 'object') return h('pre', { class: 'mcp-text' }, JSON.stringify(c));
  switch (c.type) {
    case 'text':
      return h('pre', { class: 'mcp-text' }, String(c.text ?? ''));
    case 'image':
      return image(c.data, c.mimeType);
    case 'audio':
      return h('p', { class: 'muted' }, `Audio of type ${c.mimeType || 'unknown'} (not played).`);
    case 'resource_link':
      return h('div', { class: 'mcp-link' }, h('span', { class: 'chip' }, 'resource link'), ' ',
        h('code', {}, String(c.uri ?? '')), c.name ? ` ${c.name}` : null, c.mimeType ? ` (${c.mimeType})` : null);
    case 'resource':
      return h('div', { class: 'mcp-link' }, h('span', { class: 'chip' }, 'embedded resource'), ' ',
        h('code', {}, String(c.resource?.uri ?? '')), resourceContent(c.resource || {}));
    default:
      return h('pre', { class: 'mcp-text' }, JSON.stringify(c, null, 2));
  }
}

/** resourceContent renders one entry of a resources/read's contents. */
export function resourceContent(r) {
  const mime = String(r.mimeType || '');
  if (typeof r.text === 'string') {
    return h('pre', { class: 'mcp-text' }, mime.includes('json') ? pretty(r.text) : r.text);
  }
  if (typeof r.blob === 'string') {
    if (mime.startsWith('image/')) return image(r.blob, mime, String(r.uri || ''));
    return h('p', { class: 'muted' }, `Binary content, ${mime || 'unknown type'}, ${Math.floor((r.blob.length * 3) / 4)} bytes.`);
  }
  return h('pre', { class: 'mcp-text' }, JSON.stringify(r, null, 2));
}

/** rawJSON is a collapsed view of v as JSON. */
export function rawJSON(v, label = 'Raw JSON') {
  return h('details', { class: 'raw' }, h('summary', {}, label), h('pre', { class: 'mcp-text' }, JSON.stringify(v, null, 2)));
}
