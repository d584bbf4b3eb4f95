// How the data layer asks again after a failure: a failed page of cards and a
// failed live query back off alike, and tests pass their own clock instead.

/** 1 s, 2 s, 4 s … at most 30 s: how long a failed read waits before it is asked again. */
export function retryDelay(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

/** Runs `run` after `ms`; the answer cancels it. */
export type Schedule = (run: () => void, ms: number) => () => void;

/** The page's own timer, for every Schedule a test does not replace. */
export const afterDelay: Schedule = (run, ms) => {
  const t = setTimeout(run, ms);
  return () => clearTimeout(t);
};
