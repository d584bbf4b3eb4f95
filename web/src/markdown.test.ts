// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
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
  it('links citations to the cited card, leaving code and unknown numbers alone', () => {
    const render = markdownRenderer(['card-a', 'card-b']);
    const el = dom(render('Rebase rewrites history [1][2], see [1, 2] and [7]. `arr[1]` stays.'));
    const links = [...el.querySelectorAll('a.cite')].map((a) => a.getAttribute('href'));
    expect(links).toEqual(['/card/card-a', '/card/card-b', '/card/card-a', '/card/card-b']);
    expect(el.textContent).toContain('[7]');
    expect(el.querySelector('code')!.textContent).toBe('arr[1]');
  });
  it('does not treat Markdown links as citations', () => {
    const el = dom(markdownRenderer(['a'])('[1](https://example.com)'));
    expect(el.querySelector('a.cite')).toBeNull();
    expect(el.querySelector('a')!.getAttribute('href')).toBe('https://example.com');
  });
});
