import { describe, expect, it } from 'vitest';
import { ChunkBuffer } from './chunks';

describe('ChunkBuffer', () => {
  it('joins chunks in index order whatever order they arrive in', () => {
    const b = new ChunkBuffer();
    b.set(0, 'Rebase ');
    b.set(2, 'history.');
    b.set(1, 'rewrites ');
    expect(b.text()).toBe('Rebase rewrites history.');
    expect(b.size).toBe(3);
  });
  it('replaces a chunk seen twice instead of duplicating it', () => {
    const b = new ChunkBuffer();
    b.set(0, 'a');
    b.set(1, 'b');
    b.set(1, 'B');
    expect(b.text()).toBe('aB');
  });
  it('removes and clears', () => {
    const b = new ChunkBuffer();
    b.set(5, 'x');
    b.set(6, 'y');
    b.remove(5);
    b.remove(42);
    expect(b.text()).toBe('y');
    b.clear();
    expect(b.text()).toBe('');
    expect(b.size).toBe(0);
  });
});
