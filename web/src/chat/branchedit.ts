// Editing one of your questions: the edited question is asked in a new chat
// (a branch) that keeps the turns before it; this chat stays as it is.
import { branchChat } from '../data/api';
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { chatPath, router } from '../app/router';

export class BranchEditor {
  readonly el: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly error = h('p', { class: 'error', 'data-testid': 'branch-error', hidden: true });
  private busy = false;

  constructor(
    private readonly chatId: string,
    private readonly messageIndex: number,
    original: string,
    private readonly onCancel: () => void,
  ) {
    this.input = h('textarea', { rows: 3, 'data-testid': 'branch-input', 'aria-label': 'Edited question' }) as HTMLTextAreaElement;
    this.input.value = original;
    const send = h('button', { type: 'submit', class: 'primary', 'data-testid': 'branch-send' }, 'Ask in a new branch');
    const cancel = h('button', { type: 'button', 'data-testid': 'branch-cancel' }, 'Cancel');
    cancel.addEventListener('click', () => this.onCancel());
    const form = h('form', { class: 'branch-edit' },
      this.input,
      h('p', { class: 'hint' }, 'A new chat keeps everything before this question; this chat stays as it is.'),
      h('div', { class: 'row' }, send, cancel),
      this.error);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.submit(send);
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') this.onCancel();
    });
    this.el = form;
  }

  focus(): void {
    this.input.focus();
    this.input.setSelectionRange(this.input.value.length, this.input.value.length);
  }

  private async submit(send: HTMLElement): Promise<void> {
    const content = this.input.value.trim();
    if (this.busy || !content) return;
    this.busy = true;
    send.setAttribute('disabled', '');
    replaceChildren(send, 'Starting the branch…');
    this.error.hidden = true;
    try {
      const { chat_id } = await branchChat({ chat_id: this.chatId, message_index: this.messageIndex, content });
      router.navigate(chatPath(chat_id));
    } catch (err) {
      this.busy = false;
      send.removeAttribute('disabled');
      replaceChildren(send, 'Ask in a new branch');
      this.error.textContent = describeError(err, 'Branching');
      this.error.hidden = false;
    }
  }
}
