// SVG the SPA draws itself: the element helper (the Usage chart uses it too)
// and the few icons the app shows. Drawn as paths, never as emoji or an icon
// font, so they render where no emoji font is installed.
const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text) el.textContent = text;
  return el;
}

// Outlines after Feather's thumbs-up / thumbs-down, check-circle, alert-triangle and minus-circle (MIT licence), 24 x 24.
const PATHS = {
  'thumb-up': 'M14 9V5a3 3 0 0 0-3-3l-4 9v11h11.28a2 2 0 0 0 2-1.7l1.38-9a2 2 0 0 0-2-2.3zM7 22H4a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2h3',
  'thumb-down': 'M10 15v4a3 3 0 0 0 3 3l4-9V2H5.72a2 2 0 0 0-2 1.7l-1.38 9a2 2 0 0 0 2 2.3zm7-13h2.67A2.31 2.31 0 0 1 22 4v7a2.31 2.31 0 0 1-2.33 2H17',
  'check-circle': 'M22 11.08V12a10 10 0 1 1-5.93-9.14M22 4 12 14.01l-3-3',
  'alert-triangle': 'M10.29 3.86 1.82 18a2 2 0 0 0 1.71 3h16.94a2 2 0 0 0 1.71-3L13.71 3.86a2 2 0 0 0-3.42 0zM12 9v4M12 17h.01',
  'minus-circle': 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zM8 12h8',
} as const;

export type IconName = keyof typeof PATHS;

/**
 * An icon in the current text colour. Hidden from assistive technology: the
 * control that holds it carries the name (aria-label), since an icon's name
 * would be read twice or, worse, instead of what the control does.
 */
export function icon(name: IconName): SVGElement {
  const el = svg('svg', {
    class: `icon icon-${name}`, viewBox: '0 0 24 24', width: 16, height: 16, fill: 'none', stroke: 'currentColor',
    'stroke-width': 2, 'stroke-linecap': 'round', 'stroke-linejoin': 'round', 'aria-hidden': 'true', focusable: 'false',
  });
  el.appendChild(svg('path', { d: PATHS[name] }));
  return el;
}
