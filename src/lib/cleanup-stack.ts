/** What was opened, step by step, closed in reverse order: by a later step that failed, or at the end. */
export class CleanupStack {
  private readonly closers: (() => unknown)[] = [];

  /** Registers how to close what was just opened, and returns it. */
  add<T>(opened: T, close: (opened: T) => unknown): T {
    this.closers.push(() => close(opened));
    return opened;
  }

  /** Closes everything registered, last first; a second call finds nothing left. */
  async close(): Promise<void> {
    for (let close = this.closers.pop(); close; close = this.closers.pop()) await close();
  }
}
