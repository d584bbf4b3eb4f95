// Whom a chat is shared with: one chat_viewers doc per person ({chat, owner,
// viewer}), never a list on the chat, which every visitor of a published chat
// reads. The rules give a viewer doc to the viewer it names and to the owner.
import { collection, doc, onSnapshot, query, where, type Unsubscribe } from 'firebase/firestore';
import { db } from './db';
import { watchLive, type LiveError } from './livequery';
import { COLLECTIONS } from './names';
import type { ChatDoc } from './shapes';
import { toChat } from './snapshots';

/** The id shareChat gives a viewer doc (ids.chat_viewer_id): the rules look it up by this shape. */
export function viewerDocId(chatId: string, uid: string): string {
  return `${chatId}_${uid}`;
}

/** Shared chats newest first; a chat not loaded yet, or no longer readable, is left out. */
export function newestFirst(chats: Iterable<ChatDoc | null>): ChatDoc[] {
  const at = (c: ChatDoc) => c.last_updated?.getTime() ?? 0;
  return [...chats].filter((c): c is ChatDoc => c !== null).sort((a, b) => at(b) - at(a));
}

/**
 * "Shared with me", live: the user's own viewer docs (the one list the rules
 * allow), then each chat's document (a viewer may get it), each listened to.
 */
export function watchSharedChats(uid: string, onChats: (c: ChatDoc[]) => void, onError: (e: LiveError) => void): Unsubscribe {
  const chats = new Map<string, { chat: ChatDoc | null; stop: Unsubscribe }>();
  const emit = () => onChats(newestFirst([...chats.values()].map((c) => c.chat)));
  const q = query(collection(db, COLLECTIONS.chat_viewers), where('viewer', '==', uid));
  const stopViewers = watchLive(q, (d) => String(d.get('chat') ?? ''), (ids) => {
    const wanted = new Set(ids.filter(Boolean));
    for (const [id, entry] of chats) {
      if (!wanted.has(id)) { entry.stop(); chats.delete(id); }
    }
    for (const id of wanted) {
      if (chats.has(id)) continue;
      const entry: { chat: ChatDoc | null; stop: Unsubscribe } = { chat: null, stop: () => {} };
      chats.set(id, entry);
      entry.stop = onSnapshot(doc(db, COLLECTIONS.chats, id), (s) => {
        entry.chat = s.exists() ? toChat(s) : null;
        emit();
      }, () => { entry.chat = null; emit(); }); // removed meanwhile: its viewer doc goes too
    }
    emit();
  }, onError);
  return () => {
    stopViewers();
    for (const entry of chats.values()) entry.stop();
  };
}

/** The owner's "Shared with N": how many viewer docs their chat has, live (errors leave the count as it was). */
export function watchViewerCount(chatId: string, owner: string, onCount: (n: number) => void): Unsubscribe {
  const q = query(collection(db, COLLECTIONS.chat_viewers), where('owner', '==', owner), where('chat', '==', chatId));
  return onSnapshot(q, (snap) => onCount(snap.size), () => {});
}

/**
 * Whether `uid` is a viewer of the chat, live: true while their viewer doc
 * exists; false once it is gone (the rules deny a missing one: also false).
 */
export function watchIsViewer(chatId: string, uid: string, onViewer: (isViewer: boolean) => void): Unsubscribe {
  return onSnapshot(doc(db, COLLECTIONS.chat_viewers, viewerDocId(chatId, uid)),
    (s) => onViewer(s.exists()), () => onViewer(false));
}
