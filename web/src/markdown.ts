// Markdown → sanitised HTML. Every piece of Markdown the app shows (cards and
// messages) goes through render(): model output and card bodies are untrusted,
// and sanitize() keeps them from loading anything from another origin.
import { Marked, type TokenizerAndRendererExtension, type Tokens } from 'marked';
import { cardHref, citedCardId, CITATION_RE, parseCitationNumbers } from './citations';
import { sanitize, trustedMark } from './sanitize';

interface CitationToken extends Tokens.Generic {
  type: 'citation';
  raw: string;
  numbers: number[];
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

function citationExtension(cardIds: readonly string[]): TokenizerAndRendererExtension {
  return {
    name: 'citation',
    level: 'inline',
    start(src: string) {
      const i = src.search(/\[\d/);
      return i < 0 ? undefined : i;
    },
    tokenizer(src: string): CitationToken | undefined {
      const m = CITATION_RE.exec(src);
      if (!m) return undefined;
      return { type: 'citation', raw: m[0], numbers: parseCitationNumbers(m[1]) };
    },
    renderer(token) {
      const parts = (token as CitationToken).numbers.map((n) => {
        const id = citedCardId(n, cardIds);
        return id
          ? `<a ${trustedMark()} class="cite" href="${escapeAttr(cardHref(id))}" data-card-id="${escapeAttr(id)}" title="Card ${n} of the background">${n}</a>`
          // a number naming no card this reader may know: focusable, so its preview can say so
          : `<span ${trustedMark()} class="cite-unavailable" tabindex="0">${n}</span>`;
      });
      return `<span ${trustedMark()} class="citation">[${parts.join(', ')}]</span>`;
    },
  };
}

export type Renderer = (markdown: string) => string;

/** A renderer for one chat: citations link to that chat's ranked card ids. */
export function markdownRenderer(cardIds: readonly string[] = []): Renderer {
  const marked = new Marked({ gfm: true, breaks: false, async: false });
  // Task-list boxes as text: untrusted HTML gets no form controls, so neither does ours.
  marked.use({ renderer: { checkbox: ({ checked }) => (checked ? '☑ ' : '☐ ') } });
  if (cardIds.length) marked.use({ extensions: [citationExtension(cardIds)] });
  return (md: string) => sanitize(marked.parse(md ?? '', { async: false }) as string);
}

const plain = markdownRenderer();
export const renderMarkdown: Renderer = plain;
