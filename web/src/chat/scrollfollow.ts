// Keeps a scrolling transcript pinned to its bottom while new text arrives,
// but lets go as soon as the reader scrolls up, and re-engages at the bottom.

export interface ScrollMetrics {
  scrollTop: number;
  clientHeight: number;
  scrollHeight: number;
}

export function isNearBottom(m: ScrollMetrics, slack = 40): boolean {
  return m.scrollHeight - m.scrollTop - m.clientHeight <= slack;
}

export class ScrollFollower {
  following = true;
  private programmatic = false;

  constructor(private readonly el: HTMLElement) {
    el.addEventListener('scroll', () => this.onScroll(), { passive: true });
  }

  /** Call after content changed. */
  contentChanged(): void {
    if (!this.following) return;
    this.programmatic = true;
    this.el.scrollTop = this.el.scrollHeight;
  }

  jumpToBottom(): void {
    this.following = true;
    this.contentChanged();
  }

  private onScroll(): void {
    // Our own scroll lands at the bottom; any scroll that does not is the reader's.
    const atBottom = isNearBottom(this.el);
    if (this.programmatic) {
      this.programmatic = false;
      if (atBottom) return;
    }
    this.following = atBottom;
  }
}
