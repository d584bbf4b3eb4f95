// Reveals a streaming answer at a steady pace. Chunks arrive in bursts (the
// server coalesces writes), so the text shown advances every animation frame
// at a base rate plus a share of the backlog: a big burst is caught up
// quickly but smoothly, a trickle reads like typing.

export interface Pace {
  /** characters per second with no backlog */
  baseCps: number;
  /** fraction of the backlog revealed per second */
  catchUpPerSecond: number;
}

export const DEFAULT_PACE: Pace = { baseCps: 90, catchUpPerSecond: 2.5 };

/** The new (fractional) revealed length after dtMs. Never passes `available`. */
export function advance(revealed: number, available: number, dtMs: number, pace: Pace = DEFAULT_PACE): number {
  if (revealed >= available) return available;
  const dt = Math.max(0, dtMs) / 1000;
  const backlog = available - revealed;
  return Math.min(available, revealed + (pace.baseCps + backlog * pace.catchUpPerSecond) * dt);
}

/** Extends a cut to the end of the word it falls in (at most 24 chars), so words appear whole. */
export function wordCut(text: string, n: number): number {
  if (n <= 0) return 0;
  if (n >= text.length) return text.length;
  let end = n;
  while (end < text.length && end - n < 24 && !/\s/.test(text[end])) end++;
  return end - n >= 24 ? n : end;
}

export interface FrameScheduler {
  request(cb: (t: number) => void): number;
  cancel(handle: number): void;
  now(): number;
}

const browserScheduler: FrameScheduler = {
  request: (cb) => requestAnimationFrame(cb),
  cancel: (h) => cancelAnimationFrame(h),
  now: () => performance.now(),
};

/** Drives `advance` from animation frames and reports what to show. */
export class StreamRevealer {
  private target = '';
  private complete = false;
  private revealed = 0;
  private shown = -1;
  private handle: number | null = null;
  private last = 0;

  constructor(
    private readonly onFrame: (visible: string, done: boolean) => void,
    private readonly scheduler: FrameScheduler = browserScheduler,
    private readonly pace: Pace = DEFAULT_PACE,
  ) {}

  /** Feed the latest assembled text; `complete` once the message is final. */
  update(text: string, complete: boolean): void {
    this.target = text;
    this.complete = complete;
    if (this.revealed > text.length) this.revealed = text.length;
    this.schedule();
  }

  /** Show everything at once (e.g. a finished message loaded from history). */
  finishNow(text: string): void {
    this.stop();
    this.target = text;
    this.complete = true;
    this.revealed = text.length;
    this.onFrame(text, true);
  }

  stop(): void {
    if (this.handle !== null) this.scheduler.cancel(this.handle);
    this.handle = null;
  }

  get done(): boolean {
    return this.complete && this.revealed >= this.target.length;
  }

  private schedule(): void {
    if (this.handle !== null) return;
    this.last = this.scheduler.now();
    this.handle = this.scheduler.request((t) => this.frame(t));
  }

  private frame(t: number): void {
    this.handle = null;
    const dt = t - this.last;
    this.last = t;
    this.revealed = advance(this.revealed, this.target.length, dt, this.pace);
    const cut = this.revealed >= this.target.length ? this.target.length : wordCut(this.target, Math.floor(this.revealed));
    const finished = this.complete && cut >= this.target.length;
    if (cut !== this.shown || finished) {
      this.shown = cut;
      this.onFrame(this.target.slice(0, cut), finished);
    }
    if (finished) return;
    if (this.revealed < this.target.length) this.handle = this.scheduler.request((t2) => this.frame(t2));
  }
}
