import { settleAll } from '../../../lib/collections.js';
import type { GraphStore, IdPage } from '../../../stores/graph/graph-store.js';
import { UNMETERED } from '../../../stores/graph/traversal.js';
import type { RunOutcome, SaveCheckpoint } from '../task-handler.js';

/** What a walk over an account's followers does with each page of them. */
export interface FollowerPageStep {
  /** The page's timeline writes; `last` when no page follows it. */
  write(followerIds: string[], last: boolean): Promise<void>;
  /** The rest of the work on written pages, `cursor` the checkpoint after them: false ends the walk, taking them back. */
  finish?(followerIds: string[], cursor: string | null): Promise<boolean>;
  takeBack?(followerIds: string[]): Promise<void>;
}

type PageOutcome = 'go on' | 'taken back' | 'lost';

/** A page of followers whose entries are written, and the checkpoint after it (null for the last page). */
interface WrittenPage {
  followerIds: string[];
  cursor: string | null;
}

/**
 * Walks an account's followers from a checkpoint so that timeline writes wait on nothing: the next page is read and
 * earlier pages finished while a page is written (see Fan-out in docs/design/timelines.md).
 */
export class FollowerWalk {
  constructor(
    private readonly graph: GraphStore,
    /** Followers per page (FANOUT_PAGE_SIZE); a task checkpoints after each. */
    private readonly pageSize: number,
  ) {}

  page(userId: string, after: string | null): Promise<IdPage> {
    return this.graph.followers(userId, { first: this.pageSize, after }, UNMETERED);
  }

  /** Walks `userId`'s followers from `firstPage` (read by the caller, beside its own first reads). */
  async walk(
    userId: string,
    firstPage: IdPage,
    save: SaveCheckpoint,
    stopping: () => boolean,
    step: FollowerPageStep,
  ): Promise<RunOutcome> {
    let page = firstPage;
    /** Written and not yet finished, oldest first. */
    const unfinished: WrittenPage[] = [];
    let finishing: Promise<PageOutcome> = Promise.resolve('go on');
    for (;;) {
      const followerIds = page.items.map((item) => item.id);
      const cursor = page.hasNextPage ? (page.items.at(-1)?.cursor ?? null) : null;
      const [next, outcome] = await settleAll([
        cursor ? this.page(userId, cursor) : null,
        finishing,
        step.write(followerIds, cursor === null),
      ] as const);
      unfinished.push({ followerIds, cursor });
      if (outcome !== 'go on') return this.ended(outcome, step, unfinished);
      if (!next || stopping()) {
        const last = await this.finishPages(step, unfinished.splice(0), save);
        return last !== 'go on' ? this.ended(last, step, []) : next ? 'stopped' : 'done';
      }
      finishing =
        unfinished.length > 1
          ? this.finishPages(step, unfinished.splice(0, unfinished.length - 1), save)
          : Promise.resolve('go on');
      page = next;
    }
  }

  /** Finishes written pages (taking them back if the walk must end) and saves the position after the last of them. */
  private async finishPages(
    step: FollowerPageStep,
    pages: readonly WrittenPage[],
    save: SaveCheckpoint,
  ): Promise<PageOutcome> {
    const followerIds = pages.flatMap((page) => page.followerIds);
    if (step.finish && !(await step.finish(followerIds, pages.at(-1)?.cursor ?? null))) {
      await step.takeBack?.(followerIds);
      return 'taken back';
    }
    const cursor = pages.at(-1)?.cursor;
    if (cursor && !(await save(cursor))) return 'lost';
    return 'go on';
  }

  /** A walk that must end: a lost lease leaves the rest to the new owner; a page taken back takes the pages written after it along. */
  private async ended(
    outcome: Exclude<PageOutcome, 'go on'>,
    step: FollowerPageStep,
    writtenSince: readonly WrittenPage[],
  ): Promise<RunOutcome> {
    if (outcome === 'lost') return 'lost';
    await step.takeBack?.(writtenSince.flatMap((page) => page.followerIds));
    return 'done';
  }
}
