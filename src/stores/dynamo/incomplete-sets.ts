/** Which of a graph node's sets a lookup is answered from: its following set, or its block and mute sets. */
export type NodeSet = 'following' | 'relations';

/** Most (node, set) entries remembered (about a megabyte of ids): past it, the longest-remembered is forgotten first. */
export const INCOMPLETE_SETS_MAX = 10_000;

/**
 * Graph nodes whose sets could not answer a lookup when last read, so their edges are read in the node's call
 * and a page keeps its two waves. Only a hint: a stale entry costs a few keys, never a wrong answer.
 */
export class IncompleteSets {
  /** `${set} ${userId}`, oldest record first (a Map keeps insertion order). */
  private readonly known = new Map<string, true>();

  constructor(private readonly max = INCOMPLETE_SETS_MAX) {}

  has(userId: string, set: NodeSet): boolean {
    return this.known.has(`${set} ${userId}`);
  }

  /** What a read of the user's node found: whether `set` could answer. */
  record(userId: string, set: NodeSet, complete: boolean): void {
    const key = `${set} ${userId}`;
    // Deleted first, so that a record made again moves to the young end.
    this.known.delete(key);
    if (complete) return;
    this.known.set(key, true);
    if (this.known.size > this.max) this.known.delete(this.known.keys().next().value!);
  }
}
