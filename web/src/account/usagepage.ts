// The owner's Usage page: the last 30 days per day and per model
// (answers, tokens, cost) with a small bar chart, read from the server's daily
// aggregates (usage_daily: at most 30 x models small documents, never the messages).
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { svg } from '../app/icons';
import { getUsageDays } from '../data/ownerqueries';
import type { Session } from '../data/session';
import { byModel, dayString, formatCost, formatTokens, lastDays, unpriced, USAGE_DAYS, type DayRow } from './usage';
import type { UsageDayDoc } from '../data/shapes';

/** Bars of cost per day, or of answers when nothing cost anything (the offline answerer). */
function chart(rows: DayRow[]): Element {
  const byCost = rows.some((r) => r.cost_usd > 0);
  const value = (r: DayRow) => (byCost ? r.cost_usd : r.answers);
  const max = Math.max(...rows.map(value), 0) || 1;
  const [w, hgt, gap] = [12, 80, 3];
  const el = svg('svg', {
    class: 'usage-chart', viewBox: `0 0 ${rows.length * (w + gap)} ${hgt + 2}`, role: 'img', 'data-testid': 'usage-chart',
    'aria-label': `${byCost ? 'Cost' : 'Answers'} per day over the last ${USAGE_DAYS} days`, preserveAspectRatio: 'none',
  });
  rows.forEach((r, i) => {
    const bar = Math.round((value(r) / max) * hgt);
    const rect = svg('rect', { x: i * (w + gap), y: hgt - bar + 1, width: w, height: Math.max(bar, r.answers ? 1 : 0), rx: 2 });
    rect.appendChild(svg('title', {}, `${r.day}: ${r.answers} answers, ${formatCost(r.cost_usd)}`));
    el.appendChild(rect);
  });
  return el;
}

function dayTable(rows: DayRow[], label: (m: string) => string): HTMLElement {
  const body = rows.filter((r) => r.answers).reverse().flatMap((r) => r.models.map((m, i) => h('tr', { 'data-testid': 'usage-row' },
    i === 0 ? h('th', { scope: 'row', rowspan: r.models.length }, r.day) : null,
    h('td', null, label(m.model)), h('td', { class: 'num' }, m.answers),
    h('td', { class: 'num' }, formatTokens(m.input_tokens + m.output_tokens)), h('td', { class: 'num' }, formatCost(unpriced(m.model) ? null : m.cost_usd)))));
  return h('table', { class: 'usage-table', 'data-testid': 'usage-days' },
    h('caption', { class: 'visually-hidden' }, 'Answers, tokens and cost per day and model'),
    h('thead', null, h('tr', null, ...['Day', 'Model', 'Answers', 'Tokens', 'Cost'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, body));
}

function render(root: HTMLElement, docs: UsageDayDoc[], label: (m: string) => string): void {
  const rows = lastDays(docs, new Date());
  const totals = byModel(docs);
  const sum = (f: (r: DayRow) => number) => rows.reduce((n, r) => n + f(r), 0);
  replaceChildren(root, h('section', { class: 'panel usage', 'data-testid': 'usage-page' },
    h('h1', null, 'Usage'),
    h('p', { class: 'muted' }, `The last ${USAGE_DAYS} days (UTC): `,
      h('strong', { 'data-testid': 'usage-total-answers' }, `${sum((r) => r.answers)} answers`), ', ',
      `${formatTokens(sum((r) => r.tokens))} tokens, `, h('strong', { 'data-testid': 'usage-total-cost' },
        formatCost(sum((r) => r.cost_usd)) + (totals.some((t) => unpriced(t.model)) ? ' and some unknown' : ''))),
    chart(rows),
    h('div', { class: 'usage-axis muted' }, h('span', null, rows[0].day), h('span', null, rows[rows.length - 1].day)),
    totals.length ? h('ul', { class: 'usage-models' }, totals.map((t) => h('li', null,
      h('strong', null, label(t.model)), ` · ${t.answers} answers · ${formatTokens(t.input_tokens)} in · ${formatTokens(t.output_tokens)} out · ${formatCost(unpriced(t.model) ? null : t.cost_usd)}`)))
      : h('p', { class: 'muted', 'data-testid': 'usage-empty' }, 'No answers in the last 30 days.'),
    totals.length ? dayTable(rows, label) : null));
}

export function mountUsage(root: HTMLElement, s: Session, label: (m: string) => string = (m) => m): () => void {
  let alive = true;
  replaceChildren(root, h('p', { class: 'muted', role: 'status' }, 'Loading usage…'));
  const uid = s.user?.uid ?? '';
  getUsageDays(uid, dayString(new Date(), USAGE_DAYS - 1)).then(
    (docs) => { if (alive) render(root, docs, label); },
    (err) => {
      if (alive) replaceChildren(root, h('section', { class: 'panel' }, h('p', { role: 'alert' }, `Could not load your usage: ${describeError(err)}`)));
    },
  );
  return () => { alive = false; };
}
