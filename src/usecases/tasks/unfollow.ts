import type { GraphStore } from '../../stores/graph/graph-store.js';
import type { TimelineStore } from '../../stores/timeline-store.js';
import type { BackfillHandler } from './backfill.js';
import { stillFollows } from './steps/current-state.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/**
 * `unfollow`: the followee taken back as a reason (author, reposter) of the posts in the follower's home timeline.
 * A follow made again meanwhile may have lost its backfill to these removals, so the task then ends with one.
 */
export class UnfollowHandler implements TaskHandler<'unfollow'> {
  readonly kind = 'unfollow';

  constructor(
    private readonly timelines: Pick<TimelineStore, 'homeEntriesByAuthor' | 'removeHomeReasons'>,
    private readonly graph: GraphStore,
    private readonly backfill: BackfillHandler,
  ) {}

  async run(run: TaskRun<'unfollow'>): Promise<RunOutcome> {
    const { payload, checkpoint, save, stopping } = run;
    const { followerId, followeeId } = payload;
    if (await stillFollows(this.graph, followerId, followeeId)) return 'done';
    let cursor = checkpoint;
    for (;;) {
      const page = await this.timelines.homeEntriesByAuthor(followerId, followeeId, cursor);
      await this.timelines.removeHomeReasons([
        ...page.postIds.map((postId) => ({ userId: followerId, postId, reposterId: null })),
        ...page.repostedPostIds.map((postId) => ({ userId: followerId, postId, reposterId: followeeId })),
      ]);
      if (!page.cursor) {
        if (!(await stillFollows(this.graph, followerId, followeeId))) return 'done';
        return this.backfill.run({ ...run, payload: { kind: 'backfill', followerId, followeeId } });
      }
      cursor = page.cursor;
      if (!(await save(cursor))) return 'lost';
      if (stopping()) return 'stopped';
    }
  }
}
