// Figures of answers: how the details toggle and the Usage page
// write tokens, dollars and seconds, and the last 30 days laid out from the
// server's daily aggregates (usage_daily), one row per day and per model.
import type { AnswerUsageDoc, UsageDayDoc } from '../data/shapes';

export const USAGE_DAYS = 30;

export function formatTokens(n: number): string {
  return `${Math.round(n).toLocaleString('en-US')}`;
}

/** Dollars: whole cents when large, four significant digits when tiny, "$0" for free. */
/** null: no known price. */
export function formatCost(usd: number | null): string {
  if (usd === null) return 'unknown';
  if (!usd) return '$0';
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  if (usd >= 0.01) return `$${usd.toFixed(3)}`;
  return `$${usd.toPrecision(2)}`;
}

/** A model of an OpenAI-compatible endpoint (functions/cardchat/llm/compatible.py): no known price. */
export function unpriced(model: string): boolean {
  return model.startsWith('openai_compatible:') || model.startsWith('compatible:');
}

export function formatSeconds(s: number): string {
  return s < 10 ? `${s.toFixed(2)} s` : `${s.toFixed(1)} s`;
}

/** YYYY-MM-DD (UTC) of `date` minus `days`. */
export function dayString(date: Date, days = 0): string {
  return new Date(date.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

export interface DayRow {
  day: string;
  answers: number;
  tokens: number;
  cost_usd: number;
  models: UsageDayDoc[];
}

/** The last USAGE_DAYS days ending `today`, oldest first, empty days included. */
export function lastDays(docs: readonly UsageDayDoc[], today: Date): DayRow[] {
  const rows: DayRow[] = [];
  for (let i = USAGE_DAYS - 1; i >= 0; i--) {
    const day = dayString(today, i);
    const models = docs.filter((d) => d.day === day).sort((a, b) => a.model.localeCompare(b.model));
    rows.push({
      day,
      answers: models.reduce((n, m) => n + m.answers, 0),
      tokens: models.reduce((n, m) => n + m.input_tokens + m.output_tokens, 0),
      cost_usd: models.reduce((n, m) => n + m.cost_usd, 0),
      models,
    });
  }
  return rows;
}

export interface ModelTotal {
  model: string;
  answers: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

/** Per model over the period, costliest first. */
export function byModel(docs: readonly UsageDayDoc[]): ModelTotal[] {
  const totals = new Map<string, ModelTotal>();
  for (const d of docs) {
    const t = totals.get(d.model) ?? { model: d.model, answers: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 };
    t.answers += d.answers;
    t.input_tokens += d.input_tokens;
    t.output_tokens += d.output_tokens;
    t.cost_usd += d.cost_usd;
    totals.set(d.model, t);
  }
  return [...totals.values()].sort((a, b) => b.cost_usd - a.cost_usd || b.answers - a.answers);
}

/** An answer's token counts as its owner reads them: in (cached), out, and whether they are the server's estimate. */
export function tokensLine(u: AnswerUsageDoc, out: string): string {
  const cached = u.cached_input_tokens ? ` (${formatTokens(u.cached_input_tokens)} cached)` : '';
  return `${formatTokens(u.input_tokens)} in${cached} · ${out}${u.estimated ? ' (estimated: the model sent no count)' : ''}`;
}
