// "Save as collection" on the Cards page: the current filter (or its explicit
// id list) under a name, with standing instructions to the model.
import { describeError } from '../app/errors';
import { collectionPath, router } from '../app/router';
import { collectionProblem, saveCollection, type NewCollection } from '../data/savedcollections';
import { describeCollection, type CardFilter } from './cardfilter';
import { filterQuery } from './collectionquery';
import { collectionForm } from './collectionform';

/** The dialog of the Cards page's "Save as collection" button (cards.ts), for the filter it shows. */
export function openSaveDialog(uid: string, f: CardFilter): void {
  const { dialog, form, name, instructions, error, save } = collectionForm({
    heading: 'Save as collection', hint: describeCollection(f, null), name: f.tag ?? f.text.trim(), instructions: '',
    testId: 'save-collection-dialog',
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const c: NewCollection = { name: name.value, instructions: instructions.value, query: filterQuery(f), cardIds: f.ids };
    error.textContent = collectionProblem(c);
    if (error.textContent) return;
    save.disabled = true;
    try {
      const id = await saveCollection(uid, c);
      dialog.close();
      router.navigate(collectionPath(id));
    } catch (err) {
      error.textContent = describeError(err, 'Saving the collection');
      save.disabled = false;
    }
  });
  dialog.showModal();
  name.focus();
}
