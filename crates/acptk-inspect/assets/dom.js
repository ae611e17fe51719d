// Building the page. Captured data is hostile: it only ever goes in as text nodes or
// attribute values, never as markup.

/** An element with attributes (strings; `on*` keys are event listeners) and children
 * (nodes, or anything else as text). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = value;
    // Styles through the CSSOM (the page's policy forbids inline style attributes).
    else if (key === 'style') Object.assign(node.style, value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else if (child instanceof Node) node.appendChild(child);
    else node.appendChild(document.createTextNode(String(child)));
  }
}

/** Replaces the children of `node`. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** Microseconds as a short duration. */
export function duration(micros) {
  if (micros === null || micros === undefined) return '';
  if (micros < 1000) return `${micros} µs`;
  if (micros < 1e6) return `${(micros / 1000).toFixed(1)} ms`;
  return `${(micros / 1e6).toFixed(2)} s`;
}

/** Bytes as a short size. */
export function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Microseconds since the epoch as a local date and time. */
export function when(micros) {
  if (micros === null || micros === undefined) return '';
  return new Date(micros / 1000).toLocaleString();
}

/** A JSON value as a tree of <details> (objects and arrays) and text leaves. */
export function tree(value, name = null, depth = 0) {
  const label = name === null ? [] : [el('span', { class: 'key' }, name), ': '];
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
    const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    const details = el('details', { class: 'tree', open: depth < 3 },
      el('summary', {}, label, el('span', { class: 'punct' }, summary)));
    const list = el('ul');
    for (const [key, child] of entries) list.appendChild(el('li', {}, tree(child, key, depth + 1)));
    details.appendChild(list);
    return details;
  }
  const kind = value === null ? 'null' : typeof value;
  return el('span', { class: 'leaf' }, label, el('span', { class: `v-${kind}` }, JSON.stringify(value)));
}
