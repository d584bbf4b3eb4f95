// A live query that never passes off a failure as an empty list.
// The SDK answers from its cache when it cannot reach the server (an empty
// cache: "no chats"), and a listener that errs stops for good. Here an
// answer counts only once the server gave it, an offline answer is reported
// as the failure it is, and a failed listener is started again with backoff.
import {
  onSnapshot, type DocumentData, type FirestoreError, type Query, type QueryDocumentSnapshot, type Unsubscribe,
} from 'firebase/firestore';
import { afterDelay, retryDelay, type Schedule } from './retry';

/** What the SDK means by answering from its cache before the server ever answered: it could not reach it. */
export const OFFLINE = { code: 'unavailable', message: 'The server could not be reached.' } as const;

/** Failures include the SDK answering from its cache because it cannot reach the server; both are retried. */
export type LiveError = FirestoreError | typeof OFFLINE;

export interface LiveOptions {
  retryDelay?: (attempt: number) => number;
  schedule?: Schedule;
}

/**
 * `onItems` gets the query's documents whenever the server has answered (and
 * the cache's while offline, if it holds any); `onError` gets each failure,
 * OFFLINE included, after which the listener is retried.
 */
export function watchLive<T>(
  q: Query<DocumentData>,
  map: (d: QueryDocumentSnapshot<DocumentData>) => T,
  onItems: (items: T[]) => void,
  onError: (e: LiveError) => void,
  opts: LiveOptions = {},
): Unsubscribe {
  const delay = opts.retryDelay ?? retryDelay;
  const schedule = opts.schedule ?? afterDelay;
  let attempt = 0;
  let serverAnswered = false;
  let stop: Unsubscribe = () => {};
  let cancelRetry = () => {};
  let stopped = false;
  const listen = () => {
    stop = onSnapshot(q, { includeMetadataChanges: true }, (snap) => {
      if (!snap.metadata.fromCache) {
        serverAnswered = true;
        attempt = 0;
      } else if (!serverAnswered) {
        onError(OFFLINE);
        if (snap.empty) return; // an empty cache is not an empty list
      }
      onItems(snap.docs.map(map));
    }, (err) => {
      onError(err);
      if (stopped) return;
      attempt++;
      cancelRetry = schedule(listen, delay(attempt));
    });
  };
  listen();
  return () => {
    stopped = true;
    cancelRetry();
    stop();
  };
}
