// Running async work a few at a time: an import's look-ups and batch commits
// go to Firestore in parallel, but never thousands at once (the browser's
// connection and the emulator's two cores set the useful width).

/**
 * `work(item, index)` for every item, at most `width` running at once;
 * resolves to the results in the items' order, or rejects with the first
 * failure (no new item starts after it).
 */
export async function inPool<T, R>(items: readonly T[], width: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await work(items[i], i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}
