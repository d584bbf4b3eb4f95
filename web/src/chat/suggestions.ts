// Which answer the suggested follow-ups belong to: the chat's last message,
// once it is a complete answer. An answer followed by a question (asked, or
// still being answered) has had its turn; its suggestions go.
import type { MessageDoc } from '../data/shapes';

/** The id of the answer whose follow-ups to suggest, or null for none. */
export function followupTarget(messages: readonly Pick<MessageDoc, 'id' | 'role' | 'status' | 'message_index'>[]): string | null {
  let last: (typeof messages)[number] | null = null;
  for (const m of messages) if (!last || m.message_index > last.message_index) last = m;
  return last && last.role === 'assistant' && last.status === 'complete' ? last.id : null;
}
