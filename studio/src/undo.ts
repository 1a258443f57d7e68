/**
 * Undo and redo for the element designer: snapshots of the design, the newest last.
 * A run of edits with the same key (typing into one field, holding an arrow key) within
 * `mergeMs` is one step, so Undo takes back the word or the move, not each letter.
 */
export class History<T> {
  private done: T[];
  private undone: T[] = [];
  private lastKey: string | null = null;
  private lastAt = 0;

  constructor(
    initial: T,
    private readonly limit = 200,
    private readonly mergeMs = 1000,
  ) {
    this.done = [structuredClone(initial)];
  }

  /** The design as it is now. */
  get current(): T {
    return structuredClone(this.done[this.done.length - 1]!);
  }

  get canUndo(): boolean {
    return this.done.length > 1;
  }

  get canRedo(): boolean {
    return this.undone.length > 0;
  }

  /**
   * Records `next` as the design now. With a `key` equal to the last one's, within
   * `mergeMs` of it, it replaces the last step instead of adding one. A state equal
   * to the current one is not a step.
   */
  push(next: T, key: string | null = null, now = Date.now()): void {
    if (JSON.stringify(next) === JSON.stringify(this.done[this.done.length - 1])) return;
    const merge = key !== null && key === this.lastKey && now - this.lastAt <= this.mergeMs && this.done.length > 1;
    if (merge) this.done[this.done.length - 1] = structuredClone(next);
    else this.done.push(structuredClone(next));
    if (this.done.length > this.limit) this.done.shift();
    this.undone = [];
    this.lastKey = key;
    this.lastAt = now;
  }

  /** The design before the last step (the current one when there is none). */
  undo(): T {
    if (this.canUndo) this.undone.push(this.done.pop()!);
    this.lastKey = null;
    return this.current;
  }

  redo(): T {
    const next = this.undone.pop();
    if (next !== undefined) this.done.push(next);
    this.lastKey = null;
    return this.current;
  }

  /** Starts again from `state` (a design loaded or imported): nothing to undo. */
  reset(state: T): void {
    this.done = [structuredClone(state)];
    this.undone = [];
    this.lastKey = null;
  }
}
