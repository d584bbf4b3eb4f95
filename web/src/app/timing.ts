// Named spans on the page's own clock (performance.measure), for the big
// collection benchmark (benchmarks/browser_bigcollection.mjs reads them):
// where the first screen's time goes after sign-in — auth, the profile, each
// query, the counts. A standard API with no cost worth naming when unread.

/** Marks `name` now (a point: "the first card rendered"). */
export function mark(name: string): void {
  performance.mark(`cardchat:${name}`);
}

/** Records `work`'s span as `name`, whether it succeeds or fails; answers its result. */
export async function timed<T>(name: string, work: Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await work;
  } finally {
    performance.measure(`cardchat:${name}`, { start, end: performance.now() });
  }
}
