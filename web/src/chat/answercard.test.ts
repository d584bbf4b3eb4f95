// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { answerDraft, citedIds, draftTitle, linkCitations, questionBefore } from './answercard';
import { ownerCitations } from './citations';
import { markdownRenderer } from '../app/markdown';
import type { MessageDoc } from '../data/shapes';

// [1] a readable card, [2] one the owner can no longer read, [3] withdrawn from the chat, [4] beyond the background.
const cites = ownerCitations(['mine', 'gone', '']);
const readable = new Set(['mine']);

describe('an answer as a card draft', () => {
  it('links the citations of readable cards and leaves the rest as plain text', () => {
    const body = linkCitations('Tides follow the moon [1]. Storms too [2, 3]. And [1-2] or [4], not [x](y).', cites, readable);
    expect(body).toBe('Tides follow the moon [[1](/card/mine)]. Storms too [2, 3]. And [[1](/card/mine), 2] or [4], not [x](y).');
  });

  it('renders the links as links to the card pages, and nothing else as a link', () => {
    const div = document.createElement('div');
    div.innerHTML = markdownRenderer()(linkCitations('Moon [1]. Storm [2].', cites, readable), ownerCitations([]));
    expect([...div.querySelectorAll('a')].map((a) => a.getAttribute('href'))).toEqual(['/card/mine']);
    expect(div.textContent).toContain('Storm [2].');
  });

  it('reads only the cards the answer cites and the chat still names', () => {
    expect(citedIds('A [1]. B [2, 3]. C [1]. D [9].', cites)).toEqual(['mine', 'gone']);
  });

  it('is a private card, titled by the question, recording its answer', () => {
    const draft = answerDraft('  What pulls\nthe sea? ', 'The moon [1].', cites, readable, { chat_id: 'c', message_id: 'm' });
    expect(draft).toEqual({
      fields: { title: 'What pulls the sea?', body: 'The moon [[1](/card/mine)].', visibility: 'private', viewers: [], tags: [] },
      derivedFrom: { chat_id: 'c', message_id: 'm' },
    });
  });

  it('cuts a long question to the title limit', () => {
    expect(draftTitle('q'.repeat(400))).toHaveLength(300);
    expect(draftTitle(' ')).toBe('Saved answer');
  });

  it('finds the question an answer answers', () => {
    const m = (id: string, role: 'user' | 'assistant', content: string) => ({ id, role, content }) as MessageDoc;
    const messages = [m('q1', 'user', 'first'), m('a1', 'assistant', 'x'), m('q2', 'user', 'second'), m('a2', 'assistant', 'y')];
    expect(questionBefore(messages, 'a2')).toBe('second');
    expect(questionBefore(messages, 'a1')).toBe('first');
  });
});
