// Boot: the shell (header + view outlet), the session and the router.
import './styles.css';
import { h, replaceChildren } from './app/dom';
import { router, type Route } from './app/router';
import { mountLazily, type Unmount } from './app/lazypage';
import { onSession, session, signOutNow, startSession, type Session } from './data/session';
import { renderSignIn } from './account/signin';

const outlet = document.getElementById('view') as HTMLElement;
const userBox = document.getElementById('user') as HTMLElement;
let unmount: Unmount | null = null;
let mountedFor = '';

function renderUser(s: Session): void {
  if (!s.resolved) return replaceChildren(userBox);
  if (!s.user) return replaceChildren(userBox, h('span', { class: 'muted' }, 'Not signed in'));
  replaceChildren(userBox,
    h('span', { class: 'who', 'data-testid': 'user-email' }, s.user.email ?? s.user.displayName ?? 'Signed in'),
    h('button', { type: 'button', class: 'small', 'data-testid': 'sign-out', onclick: () => void signOutNow() }, 'Sign out'));
}

function markNav(route: Route): void {
  document.querySelectorAll<HTMLAnchorElement>('nav.primary a').forEach((a) => {
    const nav = a.dataset.nav;
    const active = nav === 'settings' || nav === 'usage' || nav === 'check' ? route.name === nav
      : nav === 'chats' ? route.name === 'chat' || route.name === 'chats'
        : nav === 'collections' ? route.name === 'collections' || route.name === 'collection'
          : ['cards', 'card', 'cardedit', 'import', 'review'].includes(route.name);
    if (active) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
}

function show(route: Route): void {
  const s = session();
  // Remount only when the route or the signed-in user changes, not on every profile refresh
  // (nor when the profile says whether they may chat: the cards view follows that itself).
  const key = `${location.pathname}${location.search}|${s.resolved}|${s.user?.uid ?? ''}`;
  if (key === mountedFor) return;
  mountedFor = key;
  unmount?.();
  unmount = null;
  markNav(route);
  document.body.dataset.route = route.name;
  document.title = 'Cardchat';
  if (!s.resolved) {
    replaceChildren(outlet, h('p', { class: 'muted', role: 'status' }, route.name === 'chat' ? 'Loading chat…' : 'Loading…'));
    return;
  }
  if (route.name === 'notfound') {
    replaceChildren(outlet, h('section', { class: 'panel' }, h('h1', null, 'Not found'), h('a', { href: '/' }, 'Go to your cards')));
    return;
  }
  // Published chats and public cards (their citation targets) open without signing in.
  if (!s.user && route.name !== 'chat' && route.name !== 'card') {
    renderSignIn(outlet);
    return;
  }
  unmount = mountPage(route, s);
}

/**
 * Every page is a chunk of its own, fetched when it opens: the first screen (sign-in, or the Cards
 * page) downloads no other page's code (docs/web.md, "Chunks").
 */
function mountPage(route: Exclude<Route, { name: 'notfound' }>, s: Session): Unmount {
  const uid = s.user?.uid ?? '';
  switch (route.name) {
    case 'chat':
      return mountLazily(outlet, { load: () => import('./chat/chat'), mount: (m) => m.mountChat(outlet, route.id, s), waiting: 'Loading chat…' });
    case 'card':
      return mountLazily(outlet, { load: () => import('./cards/card'), mount: (m) => m.mountCard(outlet, route.id) });
    case 'cards':
      return mountLazily(outlet, { load: () => import('./cards/cards'), mount: (m) => m.mountCards(outlet, route, s) });
    case 'cardedit':
      return mountLazily(outlet, { load: () => import('./cards/cardeditor'), mount: (m) => m.mountCardEditor(outlet, route.id, s) });
    case 'import':
      return mountLazily(outlet, { load: () => import('./importexport/importpage'), mount: (m) => m.mountImport(outlet, s) });
    case 'settings':
      return mountLazily(outlet, { load: () => import('./account/settings'), mount: (m) => m.mountSettings(outlet, s) });
    case 'usage':
      return mountLazily(outlet, { load: () => import('./account/usagepage'), mount: (m) => m.mountUsage(outlet, s) });
    case 'check':
      return mountLazily(outlet, { load: () => import('./cards/draftcheck'), mount: (m) => m.mountDraftCheck(outlet) });
    case 'collections':
      return mountLazily(outlet, { load: () => import('./cards/collections'), mount: (m) => m.mountCollections(outlet, uid) });
    case 'collection':
      return mountLazily(outlet, { load: () => import('./cards/collections'), mount: (m) => m.mountCollection(outlet, route.id, uid) });
    case 'chats':
      return mountLazily(outlet, { load: () => import('./chat/chats'), mount: (m) => m.mountChats(outlet, s) });
    case 'review':
      return mountLazily(outlet, { load: () => import('./cards/review'), mount: (m) => m.mountReview(outlet, route, uid) });
  }
}

onSession((s) => {
  renderUser(s);
  show(router.current());
});
startSession();
router.start(show);
