// Phones and navigation bars drawn with the DOM: what the seed apps show on a device.
import { battery, icon, systemItemIcon, systemItemTitle } from './icons.js';
import { h } from './ui.js';

/** A phone: bezel, status bar, then `content`; `caption` below it. */
export function phone({ id, classes = '', caption, content = [] }) {
  return h('figure', { class: `phone ${classes}`, id },
    h('div', { class: 'phone-screen' }, statusBar(), content),
    caption ? h('figcaption', { class: 'phone-caption' }, caption) : null);
}

export function statusBar() {
  return h('div', { class: 'status-bar', 'aria-hidden': 'true' },
    h('span', { class: 'status-time', text: '9:41' }),
    h('span', { class: 'status-island' }),
    h('span', { class: 'status-icons' }, icon('signal', 16), icon('wifi', 16), battery()));
}

/** iOS colour names a BarColor may hold, as CSS colours. */
const SYSTEM_COLORS = {
  systemRed: '#FF3B30', systemOrange: '#FF9500', systemYellow: '#FFCC00', systemGreen: '#34C759', systemMint: '#00C7BE',
  systemTeal: '#30B0C7', systemCyan: '#32ADE6', systemBlue: '#007AFF', systemIndigo: '#5856D6', systemPurple: '#AF52DE',
  systemPink: '#FF2D55', systemBrown: '#A2845E', systemGray: '#8E8E93', systemBackground: '#FFFFFF', label: '#000000',
  clear: 'transparent', darkGray: '#555555', lightGray: '#AAAAAA', gray: '#808080',
};

/** A BarColor (`#RRGGBB`, `#RRGGBBAA` or a name) as CSS, or null for none or a name CSS lacks. */
export function cssColor(color) {
  if (!color) return null;
  if (/^#[0-9A-Fa-f]{6}([0-9A-Fa-f]{2})?$/.test(color)) return color;
  if (SYSTEM_COLORS[color]) return SYSTEM_COLORS[color];
  const name = color.replace(/Color$/, '');
  return CSS.supports('color', name) ? name : null;
}

/** Whether a CSS colour is dark (white text reads better on it). */
function isDark(color) {
  const match = /^#([0-9A-Fa-f]{2})([0-9A-Fa-f]{2})([0-9A-Fa-f]{2})/.exec(color || '');
  if (!match) return ['black', 'navy', 'darkblue', 'maroon', 'purple', 'darkgreen'].includes(color);
  const [r, g, b] = match.slice(1).map((part) => parseInt(part, 16));
  return 0.299 * r + 0.587 * g + 0.114 * b < 140;
}

/**
 * The look of a bar from a resolved appearance (navigation-bar's `appearance`): the standard
 * layer's background wins over the legacy `barTintColor` (B-7, B-8), as on iOS 13 and later.
 */
export function barLook(appearance) {
  const look = { background: null, translucent: true, tint: '#007AFF', title: null, titleSize: null, dark: false, transparent: false };
  if (!appearance) return look;
  const layer = appearance.standard && appearance.standard.appearance;
  look.translucent = appearance.isTranslucent !== false;
  look.background = cssColor(appearance.barTintColor);
  if (layer && layer.backgroundColor) look.background = cssColor(layer.backgroundColor);
  if (layer && layer.background === 'transparent') look.transparent = true;
  if (appearance.barStyle === 'black' && !look.background) look.background = '#1C1C1E';
  look.dark = look.background ? isDark(look.background) : false;
  look.tint = cssColor(appearance.tintColor) || (look.dark ? '#FFFFFF' : '#007AFF');
  const attributes = (layer && layer.titleTextAttributes) || appearance.titleTextAttributes;
  if (attributes) {
    look.title = cssColor(attributes.foregroundColor);
    look.titleSize = attributes.fontSize || null;
  }
  return look;
}

/** One bar button item as the bar shows it: a system icon or word, an image name, a title. */
export function barButton(item, { onclick, id, label } = {}) {
  const content = item.systemItem ? systemItemIcon(item.systemItem) || systemItemTitle(item.systemItem) : null;
  const text = content || item.title || (item.image ? `⌗ ${item.image}` : item.customView ? `[${item.customView}]` : '•');
  const spacer = item.systemItem === 'flexibleSpace' || item.systemItem === 'fixedSpace';
  if (spacer) return h('span', { class: 'bar-spacer' });
  return h(onclick ? 'button' : 'span', {
    class: `bar-item${item.style === 'done' ? ' bar-item-done' : ''}${item.isEnabled === false ? ' bar-item-disabled' : ''}`,
    type: onclick ? 'button' : null,
    id,
    onclick,
    'aria-label': label || item.title || item.systemItem || item.image || null,
    title: label || (item.systemItem ? `systemItem: ${item.systemItem}` : null),
  }, text);
}

/**
 * A navigation bar: `back` ({title} or null), `left` and `right` items (left to right), the
 * title or title view, a large title, and the look from `barLook`. Returns the bar element.
 */
export function navBar({ title, titleView, back, left = [], right = [], large = false, look = barLook(null), hidden = false, ids = {} }) {
  if (hidden) return h('div', { class: 'nav-bar nav-bar-hidden', text: 'navigation bar hidden' });
  const bar = h('div', { class: `nav-bar${look.translucent ? ' nav-bar-translucent' : ''}${look.dark ? ' nav-bar-dark' : ''}` });
  if (look.background && !look.transparent) bar.style.setProperty('--bar-background', look.background);
  if (look.transparent) bar.classList.add('nav-bar-transparent');
  bar.style.setProperty('--bar-tint', look.tint);
  if (look.title) bar.style.setProperty('--bar-title', look.title);
  const leftSide = h('div', { class: 'nav-side nav-left' });
  if (back) {
    leftSide.append(h('span', { class: 'nav-back', id: ids.back, title: back.hint || null }, icon('chevronLeft', 22),
      back.title ? h('span', { class: 'nav-back-title', id: ids.backTitle, text: back.title }) : null));
  }
  for (const item of left) leftSide.append(item instanceof Node ? item : barButton(item));
  const middle = titleView
    ? h('span', { class: 'nav-title nav-title-view', id: ids.title, text: titleView })
    : h('span', { class: `nav-title${large ? ' nav-title-hidden' : ''}`, id: ids.title, text: title || '' });
  if (look.titleSize) middle.style.fontSize = `${Math.min(look.titleSize, 28)}px`;
  const rightSide = h('div', { class: 'nav-side nav-right' }, right.map((item) => (item instanceof Node ? item : barButton(item))));
  bar.append(h('div', { class: 'nav-row' }, leftSide, h('div', { class: 'nav-middle' }, middle), rightSide));
  if (large && !titleView) bar.append(h('div', { class: 'nav-large-title', id: ids.largeTitle, text: title || '' }));
  return bar;
}
