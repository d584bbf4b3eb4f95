// Assembles a streaming answer from its chat_messages_streaming chunks.
// Chunks are kept sorted by index as they arrive, so the text is rebuilt by
// one join, never by re-sorting a whole array per snapshot.

export class ChunkBuffer {
  private indices: number[] = [];
  private contents = new Map<number, string>();
  private cached: string | null = '';

  /** Insert or replace the chunk at `index`. */
  set(index: number, content: string): void {
    if (!this.contents.has(index)) {
      // Chunks nearly always arrive in order: appending is the common case.
      let i = this.indices.length;
      while (i > 0 && this.indices[i - 1] > index) i--;
      this.indices.splice(i, 0, index);
    } else if (this.contents.get(index) === content) {
      return;
    }
    this.contents.set(index, content);
    this.cached = null;
  }

  remove(index: number): void {
    if (!this.contents.delete(index)) return;
    this.indices.splice(this.indices.indexOf(index), 1);
    this.cached = null;
  }

  get size(): number {
    return this.indices.length;
  }

  text(): string {
    if (this.cached === null) this.cached = this.indices.map((i) => this.contents.get(i)).join('');
    return this.cached;
  }

  clear(): void {
    this.indices = [];
    this.contents.clear();
    this.cached = '';
  }
}
