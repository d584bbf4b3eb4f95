// The message box: Enter sends, Shift+Enter is a new line.
import { postMessage } from '../data/api';
import { h } from '../app/dom';
import { describeError } from '../app/errors';

export class Composer {
  readonly el: HTMLFormElement;
  private readonly input: HTMLTextAreaElement;
  private readonly send: HTMLButtonElement;
  private readonly error: HTMLElement;
  private readonly hint: HTMLElement;
  private sending = false;
  private answering = false;

  constructor(private readonly chatId: string) {
    this.input = h('textarea', {
      id: 'composer-input', rows: 2, 'data-testid': 'composer-input', placeholder: 'Ask a follow-up…',
      'aria-describedby': 'composer-hint',
    });
    this.send = h('button', { type: 'submit', class: 'primary', 'data-testid': 'send' }, 'Send');
    this.error = h('p', { class: 'error', role: 'alert', 'data-testid': 'composer-error' });
    this.hint = h('p', { id: 'composer-hint', class: 'hint' }, 'Enter sends · Shift+Enter adds a line');
    this.el = h('form', { class: 'composer', 'data-testid': 'composer' },
      h('label', { for: 'composer-input', class: 'visually-hidden' }, 'Your message'),
      h('div', { class: 'composer-row' }, this.input, this.send),
      this.hint, this.error);
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.el.requestSubmit();
      }
    });
    this.el.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.submit();
    });
  }

  /** While an answer is being generated the composer waits. */
  setAnswering(answering: boolean): void {
    this.answering = answering;
    this.sync();
  }

  focus(): void {
    this.input.focus();
  }

  private sync(): void {
    const blocked = this.sending || this.answering;
    this.input.disabled = blocked;
    this.send.disabled = blocked;
    this.hint.textContent = this.answering ? 'Waiting for the answer to finish…' : 'Enter sends · Shift+Enter adds a line';
    if (!blocked && document.activeElement === document.body) this.input.focus();
  }

  private async submit(): Promise<void> {
    const content = this.input.value.trim();
    if (!content || this.sending || this.answering) return;
    this.sending = true;
    this.error.textContent = '';
    this.sync();
    try {
      await postMessage({ chat_id: this.chatId, content });
      this.input.value = '';
    } catch (err) {
      this.error.textContent = describeError(err, 'Sending');
    }
    this.sending = false;
    this.sync();
  }
}
