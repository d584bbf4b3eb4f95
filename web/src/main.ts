// Boot: the shell (header + view outlet), the session and the router.
import './styles.css';
import { h, replaceChildren } from './app/dom';
import { router, type Route } from './app/router';
import { onSession, session, signOutNow, startSession, type Session } from './data/session';
import { mountCard } from './cards/card';
import { mountCardEditor } from './cards/cardeditor';
import { mountCards } from './cards/cards';
import { mountChat } from './chat/chat';
import { mountChats } from './chat/chats';
import { mountCollection, mountCollections } from './cards/collections';
import { mountSettings } from './account/settings';
import { mountUsage } from './account/usagepage';
import { mountImport } from './importexport/importpage';
import { renderSignIn } from './account/signin';

const outlet = document.getElementById('view') as HTMLElement;
const userBox = document.getElementById('user') as HTMLElement;
let unmount: (() => void) | null = null;
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
    const active = nav === 'settings' || nav === 'usage' ? route.name === nav
      : nav === 'chats' ? route.name === 'chat' || route.name === 'chats'
        : nav === 'collections' ? route.name === 'collections' || route.name === 'collection'
          : ['cards', 'card', 'cardedit', 'import'].includes(route.name);
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
  switch (route.name) {
    case 'chat':
      // Published chats open without signing in.
      unmount = mountChat(outlet, route.id, s);
      return;
    case 'card':
      // Public cards (citation targets of published chats) open signed out too.
      unmount = mountCard(outlet, route.id);
      return;
    case 'notfound':
      replaceChildren(outlet, h('section', { class: 'panel' }, h('h1', null, 'Not found'), h('a', { href: '/' }, 'Go to your cards')));
      return;
  }
  if (!s.user) {
    renderSignIn(outlet);
    return;
  }
  if (route.name === 'settings') unmount = mountSettings(outlet, s);
  else if (route.name === 'usage') unmount = mountUsage(outlet, s);
  else if (route.name === 'cards') unmount = mountCards(outlet, route, s);
  else if (route.name === 'cardedit') unmount = mountCardEditor(outlet, route.id, s);
  else if (route.name === 'import') unmount = mountImport(outlet, s);
  else if (route.name === 'collections') unmount = mountCollections(outlet, s.user.uid);
  else if (route.name === 'collection') unmount = mountCollection(outlet, route.id, s.user.uid);
  else unmount = mountChats(outlet, s);
}

onSession((s) => {
  renderUser(s);
  show(router.current());
});
startSession();
router.start(show);
