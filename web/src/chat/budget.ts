// What the background slider means in tokens for the picked model.
import type { ModelInfo } from '../data/api';

export const MIN_PERCENT = 10;
export const MAX_PERCENT = 90;
export const DEFAULT_PERCENT = 50;

export function clampPercent(p: number): number {
  if (!Number.isFinite(p)) return DEFAULT_PERCENT;
  return Math.min(MAX_PERCENT, Math.max(MIN_PERCENT, Math.round(p)));
}

export function budgetTokens(percent: number, contextWindow: number): number {
  return Math.floor((clampPercent(percent) / 100) * contextWindow);
}

const fmt = new Intl.NumberFormat('en-US');

export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n % 1_000_000 === 0 ? 0 : 1)}M`;
  return fmt.format(n);
}

/** "16,384 of 32,768 tokens (about 12,000 words) for your cards" */
export function describeBudget(percent: number, model: Pick<ModelInfo, 'context_window'>): string {
  const tokens = budgetTokens(percent, model.context_window);
  // ~0.75 English words per token; rounded so it does not read as precise.
  const words = Math.round((tokens * 0.75) / 1000) * 1000;
  const about = words >= 1000 ? ` (about ${fmt.format(words)} words)` : '';
  return `${fmt.format(tokens)} of ${formatTokens(model.context_window)} tokens${about} for your cards`;
}

export function modelOptionLabel(m: Pick<ModelInfo, 'label' | 'offline' | 'context_window'>): string {
  const base = `${m.label} · ${formatTokens(m.context_window)} tokens`;
  return m.offline ? `${base} · offline, extractive (no AI model)` : base;
}
