// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadBeside, mountLazily, whenLoaded } from './lazypage';

/** A chunk's import() the test settles by hand. */
function held<M>(): { load: () => Promise<M>; arrive: (m: M) => Promise<void>; fail: (e: Error) => Promise<void> } {
  let settle: { resolve: (m: M) => void; reject: (e: Error) => void } | null = null;
  const promise = new Promise<M>((resolve, reject) => { settle = { resolve, reject }; });
  const flush = () => new Promise<void>((r) => setTimeout(r, 0));
  return {
    load: () => promise,
    arrive: async (m) => { settle!.resolve(m); await flush(); },
    fail: async (e) => { settle!.reject(e); await flush(); },
  };
}

interface Page { mountPage: (root: HTMLElement) => () => void }

function page(): { module: Page; unmounted: () => number } {
  let unmounts = 0;
  return {
    module: {
      mountPage: (root) => {
        root.textContent = 'the page';
        return () => { unmounts += 1; };
      },
    },
    unmounted: () => unmounts,
  };
}

describe('a page loaded when opened', () => {
  it('says it is loading, then mounts the page from its chunk', async () => {
    const outlet = document.createElement('main');
    const chunk = held<Page>();
    const p = page();
    const unmount = mountLazily(outlet, { load: chunk.load, mount: (m) => m.mountPage(outlet), waiting: 'Loading chat…' });
    expect(outlet.textContent).toBe('Loading chat…');
    await chunk.arrive(p.module);
    expect(outlet.textContent).toBe('the page');
    unmount();
    expect(p.unmounted()).toBe(1);
  });

  it('is never mounted when the reader left before its chunk arrived', async () => {
    const outlet = document.createElement('main');
    const chunk = held<Page>();
    const p = page();
    const unmount = mountLazily(outlet, { load: chunk.load, mount: (m) => m.mountPage(outlet) });
    unmount();
    outlet.textContent = 'the next page';
    await chunk.arrive(p.module);
    expect(outlet.textContent).toBe('the next page');
    expect(p.unmounted()).toBe(0);
  });

  it('says so and offers a reload when its chunk does not arrive, rather than a blank page', async () => {
    const outlet = document.createElement('main');
    const chunk = held<Page>();
    const reload = vi.fn();
    mountLazily(outlet, { load: chunk.load, mount: (m) => m.mountPage(outlet), reload });
    await chunk.fail(new TypeError('Failed to fetch dynamically imported module: /assets/chat-old.js'));
    const panel = outlet.querySelector('[data-testid=page-load-error]');
    expect(panel?.querySelector('h1')?.textContent).toBe('This page could not be loaded');
    expect(panel?.textContent).toContain('Reload to get the current version');
    expect(panel?.textContent).toContain('/assets/chat-old.js');
    outlet.querySelector<HTMLButtonElement>('[data-testid=page-load-reload]')!.click();
    expect(reload).toHaveBeenCalledOnce();
  });

  it('leaves the next page alone when its chunk fails after the reader left', async () => {
    const outlet = document.createElement('main');
    const chunk = held<Page>();
    const unmount = mountLazily(outlet, { load: chunk.load, mount: (m) => m.mountPage(outlet) });
    unmount();
    outlet.textContent = 'the next page';
    await chunk.fail(new Error('offline'));
    expect(outlet.textContent).toBe('the next page');
  });
});

describe('a feature loaded on first use', () => {
  afterEach(() => document.querySelector('[data-testid=toast]')?.remove());

  it('runs once its chunk has arrived', async () => {
    const use = vi.fn();
    await whenLoaded(() => Promise.resolve({ open: 'dialog' }), use);
    expect(use).toHaveBeenCalledWith({ open: 'dialog' });
  });

  it('says in a toast that it could not be loaded, offering a reload', async () => {
    const use = vi.fn();
    const reload = vi.fn();
    await whenLoaded(() => Promise.reject(new TypeError('Failed to fetch')), use, reload);
    expect(use).not.toHaveBeenCalled();
    expect(document.querySelector('[data-testid=toast]')?.textContent).toContain('could not be loaded');
    document.querySelector<HTMLButtonElement>('[data-testid=toast-action]')!.click();
    expect(reload).toHaveBeenCalledOnce();
  });
});

describe('a module fetched beside a view', () => {
  it('is handed to the view once it has arrived', async () => {
    const chunk = held<{ render: string }>();
    const arrived = vi.fn();
    loadBeside(chunk.load, arrived);
    expect(arrived).not.toHaveBeenCalled();
    await chunk.arrive({ render: 'markdown' });
    expect(arrived).toHaveBeenCalledWith({ render: 'markdown' });
  });

  it('is not handed to a view that is gone', async () => {
    const chunk = held<{ render: string }>();
    const arrived = vi.fn();
    const stop = loadBeside(chunk.load, arrived);
    stop();
    await chunk.arrive({ render: 'markdown' });
    expect(arrived).not.toHaveBeenCalled();
  });

  it('leaves the view as it was when it does not arrive', async () => {
    const chunk = held<{ render: string }>();
    const arrived = vi.fn();
    loadBeside(chunk.load, arrived);
    await chunk.fail(new TypeError('Failed to fetch'));
    expect(arrived).not.toHaveBeenCalled();
  });
});
