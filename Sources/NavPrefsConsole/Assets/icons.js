// Line icons drawn as SVG elements (presentation attributes, no inline style), after the SF
// Symbols an iOS bar shows: the back chevron, the system bar button items, the status bar.
const SVG = 'http://www.w3.org/2000/svg';

const PATHS = {
  chevronLeft: ['M15 4 7 12l8 8'],
  plus: ['M12 5v14', 'M5 12h14'],
  minus: ['M5 12h14'],
  clear: ['M9 5h11a1 1 0 0 1 1 1v12a1 1 0 0 1-1 1H9l-6-7z', 'm11 9 6 6', 'm17 9-6 6'],
  close: ['m6 6 12 12', 'm18 6-12 12'],
  search: ['M10.5 4a6.5 6.5 0 1 0 0 13 6.5 6.5 0 0 0 0-13z', 'm15.5 15.5 5 5'],
  trash: ['M4 7h16', 'M9 7V4h6v3', 'M6 7l1 13h10l1-13', 'M10 11v6', 'M14 11v6'],
  refresh: ['M20 12a8 8 0 1 1-2.3-5.7', 'M20 4v5h-5'],
  action: ['M12 3v12', 'm7 8 5-5 5 5', 'M6 11H5v10h14V11h-1'],
  compose: ['M4 20h4L19 9l-4-4L4 16z', 'm13 7 4 4'],
  bookmarks: ['M6 3h12v18l-6-4-6 4z'],
  camera: ['M4 8h4l2-3h4l2 3h4v11H4z', 'M12 10.5a3 3 0 1 0 0 6 3 3 0 0 0 0-6z'],
  play: ['M7 4v16l13-8z'],
  pause: ['M8 5v14', 'M16 5v14'],
  reply: ['M10 6 4 12l6 6', 'M4 12h10a6 6 0 0 1 6 6'],
  organize: ['M3 6h7l2 2h9v11H3z'],
  rewind: ['M11 6 4 12l7 6z', 'M20 6l-7 6 7 6z'],
  fastForward: ['M13 6l7 6-7 6z', 'M4 6l7 6-7 6z'],
  wifi: ['M2 9a15 15 0 0 1 20 0', 'M5.5 12.5a10 10 0 0 1 13 0', 'M9 16a5 5 0 0 1 6 0', 'M12 19.5h.01'],
  signal: ['M4 19v-2', 'M9 19v-5', 'M14 19v-8', 'M19 19V6'],
};

/** The icon `name` (a key of PATHS), `size` pixels square, stroked in the current colour. */
export function icon(name, size = 22) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', String(size));
  svg.setAttribute('height', String(size));
  svg.setAttribute('fill', 'none');
  svg.setAttribute('stroke', 'currentColor');
  svg.setAttribute('stroke-width', name === 'chevronLeft' ? '2.6' : '2');
  svg.setAttribute('stroke-linecap', 'round');
  svg.setAttribute('stroke-linejoin', 'round');
  svg.setAttribute('aria-hidden', 'true');
  svg.classList.add('icon', `icon-${name}`);
  for (const d of PATHS[name] || PATHS.close) {
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', d);
    svg.append(path);
  }
  return svg;
}

/** A battery glyph for the status bar. */
export function battery() {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 27 13');
  svg.setAttribute('width', '25');
  svg.setAttribute('height', '12');
  svg.setAttribute('aria-hidden', 'true');
  const body = document.createElementNS(SVG, 'rect');
  for (const [name, value] of Object.entries({ x: 0.5, y: 0.5, width: 22, height: 12, rx: 3.5, fill: 'none', stroke: 'currentColor', 'stroke-opacity': 0.4 })) {
    body.setAttribute(name, String(value));
  }
  const level = document.createElementNS(SVG, 'rect');
  for (const [name, value] of Object.entries({ x: 2.5, y: 2.5, width: 18, height: 8, rx: 2, fill: 'currentColor' })) {
    level.setAttribute(name, String(value));
  }
  const cap = document.createElementNS(SVG, 'path');
  cap.setAttribute('d', 'M24.5 4.5v4a2 2 0 0 0 0-4z');
  cap.setAttribute('fill', 'currentColor');
  cap.setAttribute('fill-opacity', '0.5');
  svg.append(body, level, cap);
  return svg;
}

/** The icon a system bar button item shows, or null for those that show a word. */
export function systemItemIcon(systemItem) {
  const names = {
    add: 'plus', compose: 'compose', reply: 'reply', action: 'action', organize: 'organize', bookmarks: 'bookmarks',
    search: 'search', refresh: 'refresh', stop: 'close', camera: 'camera', trash: 'trash', play: 'play', pause: 'pause',
    rewind: 'rewind', fastForward: 'fastForward', close: 'close',
  };
  return names[systemItem] ? icon(names[systemItem]) : null;
}

/** The word a system bar button item shows (done, cancel, edit, save, undo, redo). */
export function systemItemTitle(systemItem) {
  const words = { done: 'Done', cancel: 'Cancel', edit: 'Edit', save: 'Save', undo: 'Undo', redo: 'Redo' };
  return words[systemItem] || null;
}
