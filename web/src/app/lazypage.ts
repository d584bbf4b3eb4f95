// A page whose code is a chunk of its own, fetched when the page is opened (main.ts), so that the
// first screen downloads only what it shows. A chunk can fail to arrive: a deploy replaced the
// hashed file this tab's build names, or the connection dropped. The reader is then told so and
// offered a reload, rather than left with "Loading…" or an empty page.
import { h, replaceChildren } from './dom';
import { showToast } from './toast';

export type Unmount = () => void;

export interface LazyPage<M> {
  /** The dynamic `import()` of the page's module. */
  load: () => Promise<M>;
  /** Mounts the page from its module; answers how to take it down. */
  mount: (module: M) => Unmount;
  /** What the outlet says while the chunk downloads. */
  waiting?: string;
  /** What a failed reload does (a test passes its own; the browser's by default). */
  reload?: () => void;
}

function failedPanel(err: unknown, reload: () => void): HTMLElement {
  const detail = err instanceof Error && err.message ? err.message : String(err);
  return h('section', { class: 'panel', 'data-testid': 'page-load-error' },
    h('h1', null, 'This page could not be loaded'),
    h('p', { role: 'alert' },
      'Cardchat may have been updated since this tab opened, or the connection dropped. Reload to get the current version.'),
    h('p', { class: 'muted' }, detail),
    h('button', { type: 'button', class: 'primary', 'data-testid': 'page-load-reload', onclick: reload }, 'Reload'));
}

/**
 * Shows `waiting` in `outlet`, then mounts the page once its chunk has arrived. The answer unmounts
 * it: called before the chunk arrives (the reader went elsewhere), the page is never mounted.
 */
export function mountLazily<M>(outlet: HTMLElement, page: LazyPage<M>): Unmount {
  let unmount: Unmount | null = null;
  let gone = false;
  replaceChildren(outlet, h('p', { class: 'muted', role: 'status' }, page.waiting ?? 'Loading…'));
  page.load().then(
    (module) => {
      if (!gone) unmount = page.mount(module);
    },
    (err: unknown) => {
      if (!gone) replaceChildren(outlet, failedPanel(err, page.reload ?? (() => location.reload())));
    },
  );
  return () => {
    gone = true;
    unmount?.();
    unmount = null;
  };
}

/**
 * A control's feature fetched on its first use (a dialog of the Cards page, say): `use` runs once
 * its chunk has arrived; a chunk that does not arrive says so in a toast offering a reload.
 */
export async function whenLoaded<M>(load: () => Promise<M>, use: (module: M) => void, reload = () => location.reload()): Promise<void> {
  let module: M;
  try {
    module = await load();
  } catch {
    showToast('That part of Cardchat could not be loaded: it may have been updated since this tab opened.',
      { label: 'Reload', run: reload }, 20_000);
    return;
  }
  use(module);
}

/**
 * A module a view asks for as it opens but shows itself without (the card list's Markdown): `arrived`
 * runs once it has, unless the answer was called first (the view is gone). A chunk that does not
 * arrive leaves the view as it was.
 */
export function loadBeside<M>(load: () => Promise<M>, arrived: (module: M) => void): Unmount {
  let gone = false;
  load().then((module) => {
    if (!gone) arrived(module);
  }, () => {});
  return () => {
    gone = true;
  };
}
