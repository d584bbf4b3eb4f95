// How a snapshot becomes each stored shape of shapes.ts: a missing or malformed
// field gets a safe default, so a view never meets undefined.
import type { DocumentData, DocumentSnapshot } from 'firebase/firestore';
import { parseCoverage } from '../chat/coverage';
import { parseCitationChecks } from '../chat/citationchecks';
import type { Status } from '../generated/messagestatus';
import type { CollectionQuery } from './api';
import type {
  AccessTokenDoc, AnswerUsageDoc, CardDoc, ChatDoc, ChatPrivateDoc, ContextTurnDoc, DerivedFrom, FeedbackDoc,
  MessageDoc, UsageDayDoc,
} from './shapes';


function toDate(v: unknown): Date | null {
  if (v && typeof (v as { toDate?: unknown }).toDate === 'function') return (v as { toDate(): Date }).toDate();
  return v instanceof Date ? v : null;
}

export function toCard(s: DocumentSnapshot<DocumentData>): CardDoc {
  const d = s.data() ?? {};
  return {
    id: s.id,
    title: String(d.title ?? ''),
    body: String(d.body ?? ''),
    owner: String(d.owner ?? ''),
    visibility: d.visibility === 'public' ? 'public' : 'private',
    viewers: Array.isArray(d.viewers) ? d.viewers : [],
    tags: Array.isArray(d.tags) ? d.tags : [],
    updated: toDate(d.updated)?.getTime() ?? 0,
    derived_from: toDerivedFrom(d.derived_from),
  };
}

function toDerivedFrom(v: unknown): DerivedFrom | null {
  const f = v as Partial<DerivedFrom> | null | undefined;
  return f && typeof f.chat_id === 'string' && typeof f.message_id === 'string'
    ? { chat_id: f.chat_id, message_id: f.message_id } : null;
}

export function toChat(s: DocumentSnapshot<DocumentData>): ChatDoc {
  const d = s.data() ?? {};
  const citations: Record<string, string> = {};
  for (const [n, id] of Object.entries(d.public_citations ?? {})) {
    if (typeof id === 'string') citations[n] = id;
  }
  return {
    id: s.id,
    owner: String(d.owner ?? ''),
    title: String(d.title ?? ''),
    model: String(d.model ?? ''),
    created: toDate(d.created),
    last_updated: toDate(d.last_updated),
    published: d.published === true,
    look_further: d.look_further === true,
    public_citations: citations,
    message_count: Number(d.message_count ?? 0),
  };
}

export function toChatPrivate(s: DocumentSnapshot<DocumentData>): ChatPrivateDoc {
  const d = s.data() ?? {};
  return {
    background_length: Number(d.background_length ?? 0),
    background_tokens: Number(d.background_tokens ?? 0),
    card_ids: Array.isArray(d.card_ids) ? d.card_ids.map((c: unknown) => (typeof c === 'string' ? c : '')) : [],
    card_count_requested: Number(d.card_count_requested ?? 0),
    cards_unranked: Number(d.cards_unranked ?? 0),
    collection: {
      description: String(d.collection?.description ?? ''),
      configuration: d.collection?.configuration ?? {},
    },
    branched_from: d.branched_from?.chat
      ? { chat: String(d.branched_from.chat), message_index: Number(d.branched_from.message_index ?? 0) }
      : null,
    continued_from: d.continued_from?.chat
      ? { chat: String(d.continued_from.chat), messages: Number(d.continued_from.messages ?? 0) }
      : null,
    cards_considered: Number(d.cards_considered ?? 0),
    cards_packed: Number(d.cards_packed ?? 0),
    cards_cut: Number(d.cards_cut ?? 0),
    context_turns: toContextTurns(d.context_turns),
    cards_by_others: Number(d.cards_by_others ?? 0),
    collection_id: typeof d.collection_id === 'string' ? d.collection_id : null,
    collection_query: d.collection_query && typeof d.collection_query === 'object' ? d.collection_query as CollectionQuery : null,
    pinned_cards: strings(d.pinned_cards),
    excluded_cards: strings(d.excluded_cards),
    cards_changed: Number(d.cards_changed ?? 0),
  };
}

export function toMessage(s: DocumentSnapshot<DocumentData>): MessageDoc {
  const d = s.data() ?? {};
  return {
    id: s.id,
    chat: String(d.chat ?? ''),
    message_index: Number(d.message_index ?? 0),
    role: d.role === 'user' ? 'user' : 'assistant',
    content: String(d.content ?? ''),
    status: (d.status ?? 'ready') as Status,
    timestamp: toDate(d.timestamp),
    model: d.model ?? null,
    lease_expires: toDate(d.lease_expires),
    error: d.error ? String(d.error) : null,
    dropped_turns: Number(d.dropped_turns ?? 0),
    cut_off: d.cut_off ? String(d.cut_off) : null,
    provider_wait: d.provider_wait?.reason
      ? { reason: String(d.provider_wait.reason), call: Number(d.provider_wait.call ?? 2) }
      : null,
    attempts: Number(d.attempts ?? 0),
    usage: d.usage ? { output_tokens: Number(d.usage.output_tokens ?? 0) } : null,
    timings: typeof d.timings?.total === 'number'
      ? { ttft: Number(d.timings.ttft ?? d.timings.total), total: Number(d.timings.total) } : null,
    uncited_claims: typeof d.uncited_claims === 'number' ? d.uncited_claims : null,
    sources: Array.isArray(d.sources) ? d.sources.filter((n: unknown): n is number => Number.isInteger(n)) : null,
    coverage: parseCoverage(d.coverage),
    citation_checks: parseCitationChecks(d.citation_checks),
  };
}

function strings(raw: unknown): string[] {
  return Array.isArray(raw) ? raw.filter((c): c is string => typeof c === 'string') : [];
}

function toContextTurns(raw: unknown): ContextTurnDoc[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((t: Record<string, unknown>) => ({
    message_index: Number(t.message_index ?? 0),
    considered: Number(t.considered ?? 0),
    added: Array.isArray(t.added)
      ? t.added.map((a: Record<string, unknown>) => ({
        card: String(a.card ?? ''),
        n: Number(a.n ?? 0),
        rank: Number(a.rank ?? 0),
        score: typeof a.score === 'number' ? a.score : null,
        searched: a.searched === true,
      }))
      : [],
    cut: Number(t.cut ?? 0),
    dropped: Array.isArray(t.dropped) ? t.dropped.map(Number) : [],
  }));
}

export function toAccessToken(s: DocumentSnapshot<DocumentData>): AccessTokenDoc {
  return {
    id: s.id,
    label: String(s.get('label') ?? ''),
    created: toDate(s.get('created')),
    last_used: toDate(s.get('last_used')),
    scope: s.get('scope') === 'write' ? 'write' : 'read',
  };
}

export function toFeedback(s: DocumentSnapshot<DocumentData>): FeedbackDoc {
  const f = s.data() ?? {};
  return { message: s.id, rating: f.rating === 'up' ? 'up' : 'down', comment: String(f.comment ?? '') };
}

export function toAnswerUsage(s: DocumentSnapshot<DocumentData>): AnswerUsageDoc {
  const d = s.data() ?? {};
  const u = (d.usage ?? {}) as Record<string, unknown>;
  return {
    message: s.id,
    input_tokens: Number(u.input_tokens ?? 0),
    output_tokens: Number(u.output_tokens ?? 0),
    cached_input_tokens: Number(u.cached_input_tokens ?? 0),
    cost_usd: d.cost_usd === null ? null : Number(d.cost_usd ?? 0),
    estimated: u.estimated === true,
    card_searches: Number(d.card_searches ?? 0),
  };
}

export function toUsageDay(s: DocumentSnapshot<DocumentData>): UsageDayDoc {
  const u = s.data() ?? {};
  return {
    day: String(u.day ?? ''), model: String(u.model ?? ''), answers: Number(u.answers ?? 0),
    input_tokens: Number(u.input_tokens ?? 0), output_tokens: Number(u.output_tokens ?? 0), cost_usd: Number(u.cost_usd ?? 0),
  };
}
