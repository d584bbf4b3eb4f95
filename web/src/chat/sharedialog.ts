// The owner's Share dialog: add people by email, see who has
// access, remove them, and choose whether visitors of the published link see
// the owner's name. Emails live only in shareChat's answers, shown here; the
// chat itself keeps uids.
import { shareChat, type ShareChatRequest, type Viewer } from '../data/api';
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';

export function openShareDialog(chatId: string): void {
  new ShareDialog(chatId).open();
}

class ShareDialog {
  private readonly error = h('p', { class: 'error', role: 'alert', 'data-testid': 'share-error' });
  private readonly list = h('ul', { class: 'viewer-list', 'data-testid': 'share-viewers' });
  private readonly email = h('input', {
    type: 'email', id: 'share-email', required: true, autocomplete: 'off', placeholder: 'name@example.com',
    'data-testid': 'share-email',
  });
  private readonly add = h('button', { type: 'submit', 'data-testid': 'share-add' }, 'Add');
  private readonly showAuthor = h('input', { type: 'checkbox', id: 'share-show-author', 'data-testid': 'share-show-author', disabled: true });
  private readonly dialog: HTMLDialogElement;
  private busy = false;

  constructor(private readonly chatId: string) {
    const close = h('button', { type: 'button', 'data-testid': 'share-close' }, 'Done');
    const form = h('form', { class: 'share-add-row' },
      h('label', { for: 'share-email', class: 'offscreen' }, 'Email address'), this.email, this.add);
    this.dialog = h('dialog', { class: 'dialog', 'data-testid': 'share-dialog', 'aria-labelledby': 'share-title' },
      h('div', { class: 'stack' },
        h('h2', { id: 'share-title' }, 'Share with people'),
        h('p', { class: 'hint' }, 'They read the chat as it grows, and cannot write in it.'),
        form, this.error, this.list,
        h('label', { class: 'switch', for: 'share-show-author' }, this.showAuthor,
          ' Show my name to visitors of the published link'),
        h('div', { class: 'actions' }, close)));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const address = this.email.value.trim();
      if (address) void this.change({ add: [address] }, () => { this.email.value = ''; });
    });
    this.showAuthor.addEventListener('change', () => void this.change({ show_author: this.showAuthor.checked }));
    close.addEventListener('click', () => this.dialog.close());
    this.dialog.addEventListener('close', () => this.dialog.remove());
  }

  open(): void {
    document.body.appendChild(this.dialog);
    this.dialog.showModal();
    this.email.focus();
    replaceChildren(this.list, h('li', { class: 'muted' }, 'Loading…'));
    void this.change({});
  }

  /** One shareChat call; the answer is the whole truth, so the list is redrawn from it. */
  private async change(req: Omit<ShareChatRequest, 'chat_id'>, onDone?: () => void): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.add.disabled = this.showAuthor.disabled = true;
    this.error.textContent = '';
    try {
      const out = await shareChat({ chat_id: this.chatId, ...req });
      this.showAuthor.checked = out.show_author;
      this.render(out.viewers);
      onDone?.();
    } catch (err) {
      this.error.textContent = describeError(err, 'Sharing');
    }
    this.busy = false;
    this.add.disabled = this.showAuthor.disabled = false;
  }

  private render(viewers: Viewer[]): void {
    if (!viewers.length) {
      replaceChildren(this.list, h('li', { class: 'muted', 'data-testid': 'share-nobody' }, 'Not shared with anyone yet.'));
      return;
    }
    replaceChildren(this.list, viewers.map((v) => {
      const remove = h('button', { type: 'button', class: 'small', 'data-testid': 'share-remove', 'aria-label': `Remove ${v.email}` }, 'Remove');
      remove.addEventListener('click', () => void this.change({ remove: [v.email] }));
      return h('li', { 'data-testid': 'share-viewer', 'data-email': v.email },
        h('span', null, v.display_name ? `${v.display_name} · ` : '', v.email || '(account deleted)'),
        v.email ? remove : null);
    }));
  }
}
