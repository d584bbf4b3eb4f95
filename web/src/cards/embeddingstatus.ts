// "embedded 1,234 / 5,000" on the Cards page while the server embeds the
// owner's cards in batches (embedCard). It follows the owner's
// embedding_progress document, which the server rewrites after every batch,
// and is hidden once every card has its vector; cards over the owner's card
// quota are counted beside it ("· 2 over your card limit").
import { embeddingProgress, watchEmbeddingProgress } from '../data/cardwrites';
import { h } from '../app/dom';
import { progressText } from './embeddingskip';
import { describeError } from '../app/errors';
import { timed } from '../app/timing';

export class EmbeddingStatus {
  readonly el = h('span', { class: 'muted', role: 'status', hidden: true, 'data-testid': 'embedding-status' });
  private unsubscribe: () => void = () => {};
  private alive = true;
  private counting = false;
  private again = false;

  constructor(private readonly uid: string) {}

  /** Follows the progress from now on (the cards page starts it after its first screen: it counts the collection). */
  start(): void {
    if (!this.alive) return;
    this.unsubscribe = watchEmbeddingProgress(
      this.uid,
      () => void this.recount(),
      (err) => this.show(`Couldn't follow embedding progress: ${describeError(err)}`),
    );
  }

  dispose(): void {
    this.alive = false;
    this.unsubscribe();
  }

  /** One count at a time: batches land every ~2 s, a count may take longer on a big collection. */
  private async recount(): Promise<void> {
    if (this.counting) { this.again = true; return; }
    this.counting = true;
    try {
      const p = await timed('embedding-progress', embeddingProgress(this.uid));
      if (!this.alive) return;
      const text = progressText(p);
      if (text === null) this.el.hidden = true;
      else this.show(text);
    } catch (err) {
      this.show(`Couldn't count embedded cards: ${describeError(err)}`);
    } finally {
      this.counting = false;
      if (this.again && this.alive) { this.again = false; void this.recount(); }
    }
  }

  private show(text: string): void {
    this.el.textContent = text;
    this.el.hidden = false;
  }
}
