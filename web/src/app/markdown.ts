// Markdown → sanitised HTML. Every piece of Markdown the app shows (cards and
// messages) goes through render(): model output and card bodies are untrusted,
// and sanitize() keeps them from loading anything from another origin.
import { Marked, type TokenizerAndRendererExtension, type Tokens } from 'marked';
import { cardHref, CITATION_RE, parseCitationNumbers, type CitationMap } from '../chat/citations';
import { sanitize, trustedMark } from './sanitize';

interface CitationToken extends Tokens.Generic {
  type: 'citation';
  raw: string;
  numbers: number[];
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

function escapeHtml(s: string): string {
  return escapeAttr(s).replace(/>/g, '&gt;');
}

function citationExtension(current: () => CitationMap | null): TokenizerAndRendererExtension {
  return {
    name: 'citation',
    level: 'inline',
    start(src: string) {
      const i = src.search(/\[\d/);
      return current() && i >= 0 ? i : undefined;
    },
    tokenizer(src: string): CitationToken | undefined {
      const m = current() ? CITATION_RE.exec(src) : null;
      if (!m) return undefined;
      return { type: 'citation', raw: m[0], numbers: parseCitationNumbers(m[0]) };
    },
    renderer(token) {
      const { raw, numbers } = token as CitationToken;
      const cites = current();
      const cards = numbers.map((n) => cites?.card(n) ?? null);
      // a citation naming no card is plain text: it does not cite (claims.ts)
      if (cards.every((id) => id === null)) return escapeHtml(raw);
      const parts = numbers.map((n, i) => {
        const id = cards[i];
        if (id === null) return String(n);
        return id
          ? `<a ${trustedMark()} class="cite" href="${escapeAttr(cardHref(id))}" data-card-id="${escapeAttr(id)}" title="Card ${n} of the background">${n}</a>`
          // a card this reader may not view: focusable, so its preview can say so
          : `<span ${trustedMark()} class="cite-unavailable" tabindex="0">${n}</span>`;
      });
      return `<span ${trustedMark()} class="citation">[${parts.join(', ')}]</span>`;
    },
  };
}

/** Renders an answer's Markdown, its citations read through `cites` (none: no citations, as in a card). */
export type Renderer = (markdown: string, cites?: CitationMap | null) => string;

export function markdownRenderer(): Renderer {
  const marked = new Marked({ gfm: true, breaks: false, async: false });
  // Task-list boxes as text: untrusted HTML gets no form controls, so neither does ours.
  marked.use({ renderer: { checkbox: ({ checked }) => (checked ? '☑ ' : '☐ ') } });
  let cites: CitationMap | null = null; // parsing is synchronous: set for one call
  marked.use({ extensions: [citationExtension(() => cites)] });
  return (md: string, citations?: CitationMap | null) => {
    cites = citations ?? null;
    try {
      return sanitize(marked.parse(md ?? '', { async: false }) as string);
    } finally {
      cites = null;
    }
  };
}

const plain = markdownRenderer();
export const renderMarkdown: Renderer = (md) => plain(md);
