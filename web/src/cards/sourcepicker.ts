// The Cards page's choice of whose cards it shows: "Mine" first and by
// default; others' cards only by a choice it names: "Shared with me" (the
// cards of the people the reader accepted: someone who shares cards with the
// reader is pending until accepted, and can be stopped), one owner's public cards, optionally by tag
// (reached from that owner's public card or a link to their deck, and kept
// as a followed source). Every public card of everyone is no choice at all.
// The choices live in card_sources/{uid}, through cardqueries.ts.
import type { CardScope } from './cardfilter';
import { sharersOf, updateCardSources, watchCardSources } from '../data/cardqueries';
import {
  acceptSharer, follow, hideSharer, isFollowed, NO_SOURCES, ownerLabel, sameSource, showSharer, sourceLabel, unfollow,
} from './cardsources';
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import type { CardSources, FollowedSource } from '../data/shapes';

/** What the page shows: a scope, the owner of an 'owner' scope, the tag (a followed source's, or the filter's). */
export interface SourceChoice {
  scope: CardScope;
  owner: string | null;
  tag: string | null;
}

export interface SourceCounts {
  mine?: number | null;
  shared?: number | null;
}

/** What the list says when the chosen source holds no card (null: the list's own words). */
export function emptySourceText(c: SourceChoice, filtered: boolean): string | null {
  if (c.scope === 'owner' && c.owner) {
    return filtered ? `No public card of ${ownerLabel(c.owner)}’s matches this filter.` : `${ownerLabel(c.owner)} has no public cards now.`;
  }
  if (c.scope === 'shared') {
    return filtered ? 'No card shared with you matches this filter.' : 'No cards are shared with you by people you accepted.';
  }
  return null;
}

/** People "Shared with me" lists, at most (each costs one read; accepted and stopped ones are listed from card_sources too). */
const SHARERS_LISTED = 40;

type SharerAction = 'Accept' | 'Stop' | 'Undo';

export class SourcePicker {
  readonly el: HTMLElement;
  /** Under the toolbar while "Shared with me" is shown: who shares, accept or stop them. */
  readonly sharersEl = h('div', { class: 'banner', hidden: true, 'data-testid': 'sharers' });
  private readonly select = h('select', { id: 'card-scope', 'data-testid': 'card-source' });
  private readonly followButton = h('button', { type: 'button', hidden: true, 'data-testid': 'follow-source' });
  private readonly status = h('span', { class: 'error', role: 'alert', 'data-testid': 'source-error' });
  private sources: CardSources | null = null;
  private counts: SourceCounts = {};
  /** People found sharing cards with the reader (accepted, stopped or pending), once "Shared with me" is shown. */
  private sharers: string[] | null = null;
  private options: SourceChoice[] = [];
  private stop: () => void = () => {};

  constructor(
    private readonly uid: string,
    private current: SourceChoice,
    private readonly onPick: (c: SourceChoice) => void,
    private readonly onSources: (s: CardSources) => void,
  ) {
    this.el = h('div', { class: 'field' }, h('label', { for: 'card-scope' }, 'Whose'),
      h('div', { class: 'row' }, this.select, this.followButton), this.status);
    this.select.addEventListener('change', () => {
      const picked = this.options[Number(this.select.value)];
      if (picked) this.onPick(picked);
    });
    this.followButton.addEventListener('click', () => this.toggleFollow());
    this.render();
  }

  /** Starts following the reader's card_sources: until it answers, nobody is followed or hidden. */
  start(): void {
    this.stop = watchCardSources(this.uid, (s) => {
      this.sources = s;
      this.onSources(s);
      this.render();
      this.findSharers();
    }, (e) => {
      this.status.textContent = `Could not read the sources you follow: ${describeError(e)}`;
      if (!this.sources) this.onSources(NO_SOURCES);
    });
  }

  dispose(): void {
    this.stop();
  }

  setCurrent(c: SourceChoice): void {
    this.current = c;
    this.render();
    this.findSharers();
  }

  setCounts(counts: SourceCounts): void {
    this.counts = counts;
    this.render();
  }

  /** Who shares cards with the reader, looked up once "Shared with me" is shown (one read a person). */
  private findSharers(): void {
    if (this.current.scope !== 'shared' || this.sharers !== null) return;
    this.sharers = [];
    sharersOf(this.uid, SHARERS_LISTED).then((found) => {
      this.sharers = found.filter((o) => o !== this.uid);
      this.renderSharers();
    }, (e: unknown) => { this.status.textContent = `Could not find who shares cards with you: ${describeError(e)}`; });
  }

  private currentSource(): FollowedSource | null {
    const { scope, owner, tag } = this.current;
    return scope === 'owner' && owner ? (tag ? { owner, tag } : { owner }) : null;
  }

  private render(): void {
    const label = (name: string, n: number | null | undefined) => (n === null || n === undefined ? name : `${name} (${n})`);
    const followed = this.sources?.following ?? [];
    const current = this.currentSource();
    const owners: FollowedSource[] = [...followed];
    if (current && !followed.some((f) => sameSource(f, current))) owners.push(current);
    this.options = [
      { scope: 'mine', owner: null, tag: null },
      { scope: 'shared', owner: null, tag: null },
      ...owners.map((f): SourceChoice => ({ scope: 'owner', owner: f.owner, tag: f.tag ?? null })),
    ];
    replaceChildren(this.select,
      h('option', { value: '0', 'data-testid': 'scope-mine' }, label('Mine', this.counts.mine)),
      h('option', { value: '1', 'data-testid': 'scope-shared' }, label('Shared with me', this.counts.shared)),
      owners.map((f, i) => h('option', { value: String(i + 2), 'data-testid': 'scope-owner', 'data-owner': f.owner }, sourceLabel(f))));
    const at = current ? 2 + owners.findIndex((f) => sameSource(f, current)) : this.current.scope === 'shared' ? 1 : 0;
    this.select.value = String(at);
    const following = current !== null && this.sources !== null && isFollowed(this.sources, current);
    this.followButton.hidden = current === null;
    this.followButton.dataset.testid = following ? 'unfollow-source' : 'follow-source';
    this.followButton.textContent = current ? `${following ? 'Unfollow' : 'Follow'} ${sourceLabel(current)}` : '';
    this.renderSharers();
  }

  private renderSharers(): void {
    const accepted = this.sources?.accepted_sharers ?? [];
    const stopped = this.sources?.hidden_sharers ?? [];
    const pending = (this.sharers ?? []).filter((s) => !accepted.includes(s) && !stopped.includes(s));
    this.sharersEl.hidden = this.current.scope !== 'shared' || accepted.length + stopped.length + pending.length === 0;
    const line = (label: string, people: string[], actions: SharerAction[], testid: string) => (people.length
      ? h('div', { 'data-testid': testid }, label, ...people.map((p) => h('span', { class: 'sharer', 'data-sharer': p },
        ` ${ownerLabel(p)} `, ...actions.map((a) => this.sharerButton(p, a)))))
      : null);
    replaceChildren(this.sharersEl,
      line('Waiting for you to accept their cards:', pending, ['Accept', 'Stop'], 'pending-sharers'),
      line('Shared with you by:', accepted, ['Stop'], 'accepted-sharers'),
      line('Stopped:', stopped, ['Undo'], 'stopped-sharers'));
  }

  private sharerButton(sharer: string, action: SharerAction): HTMLElement {
    const edit = { Accept: acceptSharer, Stop: hideSharer, Undo: showSharer }[action];
    return h('button', { type: 'button', class: 'link', 'data-testid': `${action.toLowerCase()}-sharer`, 'data-sharer': sharer,
      onclick: () => this.change((s) => edit(s, sharer)) }, action === 'Undo' ? 'Undo stop' : action);
  }

  private toggleFollow(): void {
    const src = this.currentSource();
    if (!src) return;
    this.change((s) => (isFollowed(s, src) ? unfollow(s, src) : follow(s, src)));
  }

  /** Writes a change of the reader's sources; the live document then redraws the page. */
  private change(edit: (s: CardSources) => CardSources): void {
    this.status.textContent = '';
    updateCardSources(this.uid, edit).catch((e: unknown) => {
      this.status.textContent = e instanceof Error && !('code' in e) ? e.message : `Could not save: ${describeError(e)}`;
    });
  }
}
