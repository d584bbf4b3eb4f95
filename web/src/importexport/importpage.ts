// The Import page: pick a folder of Markdown files, a .zip of
// them, a JSON export, or PDFs; see what will happen (count, and every file's
// problem) before anything is written; write in batches with a progress bar;
// then a summary, and the embeddings catching up ("embedded n / N").
import { embeddingProgress, ownCardsAmong, writeImport } from '../data/cardwrites';
import { h, replaceChildren } from '../app/dom';
import { progressText } from '../cards/embeddingskip';
import { describeError } from '../app/errors';
import { isLoosePdf, readFiles, readPicked, type ReadResult, type SourceFile } from './importparse';
import { fieldChanges, importWrites, widening } from './importdiff';
import { planImport, summary, type ImportPlan, type PlannedCard } from './importplan';
import type { Session } from '../data/session';

const EMBED_POLL_MS = 2000;
// Updates listed one by one in the preview; past it, a count (widening ones are always all listed).
const CHANGES_LISTED = 200;

/**
 * Each step of a read or a write as a performance measure ("import: parsed"),
 * from the previous step's end: what the Performance panel, and
 * benchmarks/browser_import.mjs, break an import's time down by.
 */
function phases(): (name: string) => void {
  let from = performance.now();
  return (name) => {
    const to = performance.now();
    performance.measure(`import: ${name}`, { start: from, end: to });
    from = to;
  };
}

function count(n: number, what: string): string {
  return `${n.toLocaleString('en')} ${what}${n === 1 ? '' : 's'}`;
}

/** "notes/a.md: body changed; visibility private → public" */
function changeLine(u: PlannedCard): HTMLElement {
  const changes = u.before ? fieldChanges(u.before, u.fields) : [];
  return h('li', null, h('strong', null, u.where), `: ${changes.map((c) => `${c.field} ${c.what}`).join('; ')}`);
}

/** Every update's changes (the first CHANGES_LISTED), folded away. */
function changesList(updates: readonly PlannedCard[]): HTMLElement | null {
  if (!updates.length) return null;
  const more = updates.length - CHANGES_LISTED;
  return h('details', { 'data-testid': 'import-changes' },
    h('summary', null, `What changes in ${count(updates.length, 'card')} of yours`),
    h('ul', null, updates.slice(0, CHANGES_LISTED).map(changeLine)),
    more > 0 ? h('p', { class: 'muted' }, `and ${count(more, 'more card')}`) : null);
}

/**
 * The picked files' cards: PDFs through pdfread.ts, loaded (with pdfjs) only
 * when one is picked; everything else through readPicked.
 */
async function readAll(files: SourceFile[], onProgress: (read: number, total: number) => void): Promise<ReadResult> {
  const pdfs = files.filter((f) => isLoosePdf(f.path));
  if (!pdfs.length) return readPicked(files, onProgress);
  const { readPdfs } = await import('./pdfread');
  const fromPdfs = await readPdfs(pdfs);
  const rest = files.filter((f) => !isLoosePdf(f.path));
  const others = rest.length ? await readPicked(rest, onProgress) : { cards: [], problems: [], ignored: 0 };
  return { cards: [...fromPdfs.cards, ...others.cards], problems: [...fromPdfs.problems, ...others.problems], ignored: others.ignored };
}

export function mountImport(root: HTMLElement, s: Session): () => void {
  const page = new ImportPage(root, s.user!.uid);
  return () => page.dispose();
}

class ImportPage {
  private readonly folder = h('input', { type: 'file', webkitdirectory: true, multiple: true, 'data-testid': 'import-folder', id: 'import-folder' });
  private readonly file = h('input', { type: 'file', accept: '.zip,.json,.md,.markdown,.pdf', multiple: true, 'data-testid': 'import-file', id: 'import-file' });
  private readonly preview = h('div', { 'data-testid': 'import-preview' });
  private readonly progress = h('progress', { max: 1, value: 0, hidden: true, 'data-testid': 'import-progress' });
  private readonly result = h('p', { role: 'status', 'data-testid': 'import-summary' });
  private readonly embedded = h('p', { class: 'muted', role: 'status', 'data-testid': 'import-embedded' });
  private plan: ImportPlan | null = null;
  private poll: ReturnType<typeof setInterval> | undefined;
  private alive = true;

  constructor(root: HTMLElement, private readonly uid: string) {
    replaceChildren(root, h('section', { class: 'panel import-page' },
      h('h1', null, 'Import cards'),
      h('p', null, 'A folder of Markdown files (front matter may give title, tags, visibility), a .zip of one, a JSON export, ',
        'or PDFs (a card for each section of the outline, else for each page). Importing the same files again updates their cards.'),
      h('div', { class: 'field' }, h('label', { for: 'import-folder' }, 'A folder'), this.folder),
      h('div', { class: 'field' }, h('label', { for: 'import-file' }, 'Or a .zip, .json, PDF or Markdown files'), this.file),
      this.preview, this.progress, this.result, this.embedded,
      h('p', null, h('a', { href: '/' }, 'Back to your cards'))));
    for (const input of [this.folder, this.file]) input.addEventListener('change', () => void this.read(input));
  }

  dispose(): void {
    this.alive = false;
    clearInterval(this.poll);
  }

  private async read(input: HTMLInputElement): Promise<void> {
    const picked = [...(input.files ?? [])];
    const status = h('p', { class: 'muted', role: 'status' }, `Reading ${count(picked.length, 'file')}…`);
    replaceChildren(this.preview, status);
    this.result.textContent = '';
    const phase = phases();
    try {
      const files = await readFiles(picked);
      phase('files read');
      const read = await readAll(files, (done, total) => {
        status.textContent = `Reading ${done.toLocaleString('en')} / ${count(total, 'file')}…`;
      });
      phase('parsed');
      status.textContent = `Comparing ${count(read.cards.length, 'card')} with yours…`;
      const plan = await planImport(this.uid, read.cards, (ids) => ownCardsAmong(this.uid, ids));
      phase('looked up');
      plan.problems.unshift(...read.problems);
      if (!this.alive) return;
      this.plan = plan;
      this.showPlan(plan, read.ignored);
    } catch (err) {
      replaceChildren(this.preview, h('p', { role: 'alert', class: 'error' }, `Could not read that: ${describeError(err)}`));
    }
  }

  private showPlan(plan: ImportPlan, ignored: number): void {
    const go = h('button', { type: 'button', class: 'primary', 'data-testid': 'import-go' });
    const widen = this.wideningConfirmation(plan, () => label());
    const label = () => {
      const writes = importWrites(plan, widen?.input.checked ?? false);
      const n = writes.creates.length + writes.updates.length;
      go.textContent = `Import ${count(n, 'card')}`;
      go.disabled = n === 0;
    };
    label();
    go.addEventListener('click', () => { go.disabled = true; void this.write(widen?.input.checked ?? false); });
    replaceChildren(this.preview,
      h('p', { 'data-testid': 'import-counts' },
        `${count(plan.creates.length, 'new card')}, ${count(plan.updates.length, 'changed card')}, ${plan.unchanged.length.toLocaleString('en')} unchanged`,
        plan.problems.length ? `, ${count(plan.problems.length, 'file')} with problems (not imported)` : '',
        ignored ? `; ${count(ignored, 'other file')} ignored` : '', '.'),
      plan.problems.length
        ? h('ul', { class: 'import-problems', 'data-testid': 'import-problems' },
          plan.problems.map((p) => h('li', null, h('strong', null, p.where), `: ${p.why}`)))
        : null,
      changesList(plan.updates), widen?.box ?? null, go);
  }

  /**
   * The cards whose access the import would widen, and the box that allows it:
   * unticked, they keep who may read them (importdiff.importWrites).
   */
  private wideningConfirmation(plan: ImportPlan, onChange: () => void): { box: HTMLElement; input: HTMLInputElement } | null {
    const wider = widening(plan);
    if (!wider.length) return null;
    const input = h('input', { type: 'checkbox', id: 'import-widen', 'data-testid': 'import-widen' });
    input.addEventListener('change', onChange);
    const box = h('fieldset', { class: 'import-widening', 'data-testid': 'import-widening' },
      h('legend', null, `This import would let more people read ${count(wider.length, 'card')} of yours`),
      h('ul', null, wider.map(changeLine)),
      h('div', { class: 'field' }, input,
        h('label', { for: 'import-widen' }, 'Widen who may read these cards, as listed. Unticked, they keep who may read them now.')));
    return { box, input };
  }

  private async write(widen: boolean): Promise<void> {
    const plan = this.plan!;
    const { creates, updates } = importWrites(plan, widen);
    const total = creates.length + updates.length;
    this.progress.hidden = false;
    this.progress.max = total;
    const phase = phases();
    try {
      await writeImport(this.uid, creates, updates, (written) => {
        phase(`written ${written}`);
        this.progress.value = written;
        this.result.textContent = `Written ${written.toLocaleString('en')} / ${total.toLocaleString('en')}…`;
      });
      const unchanged = plan.unchanged.length + plan.updates.length - updates.length;
      this.result.textContent = summary(creates.length, updates.length, unchanged, plan.problems.length);
      this.watchEmbeddings();
    } catch (err) {
      this.result.textContent = `The import stopped: ${describeError(err)}. Import again: cards already written are skipped as unchanged.`;
    }
  }

  /** Embeddings are made by the server after the writes, asynchronously: count them until all are there. */
  private watchEmbeddings(): void {
    const tick = async () => {
      try {
        const p = await embeddingProgress(this.uid);
        if (!this.alive) return;
        this.embedded.textContent = progressText(p) ?? `embedded ${p.embedded.toLocaleString('en')} / ${p.cards.toLocaleString('en')}`;
        // cards over the owner's card limit wait for the limit, not for this page
        if (p.embedded + p.skipped >= p.cards) clearInterval(this.poll);
      } catch (err) {
        this.embedded.textContent = `Could not count embeddings: ${describeError(err)}`;
        clearInterval(this.poll);
      }
    };
    void tick();
    this.poll = setInterval(() => void tick(), EMBED_POLL_MS);
  }
}
