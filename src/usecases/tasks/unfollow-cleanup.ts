import type { GraphStore } from '../../stores/graph/graph-store.js';
import type { TimelineStore } from '../../stores/timeline-store.js';
import { type FollowBackfill, stillFollows } from './follow-backfill.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/**
 * `unfollow`: removes the followee's posts from the follower's home timeline, and takes the
 * followee back as a reason from the posts the followee reposted there (a post that no reason
 * is left for goes). Followed again before this ran, it does nothing; followed again while it
 * ran (the new follow's backfill may have been undone by these deletes), it finishes with a backfill.
 */
export class UnfollowCleanup implements TaskHandler<'unfollow'> {
  readonly kind = 'unfollow';

  constructor(
    private readonly timelines: Pick<TimelineStore, 'homeEntriesByAuthor' | 'removeHomeEntries' | 'removeRepostEntries'>,
    private readonly graph: GraphStore,
    private readonly backfill: FollowBackfill,
  ) {}

  async run(run: TaskRun<'unfollow'>): Promise<RunOutcome> {
    const { payload, checkpoint, save, stopping } = run;
    const { followerId, followeeId } = payload;
    if (await stillFollows(this.graph, followerId, followeeId)) return 'done';
    let cursor = checkpoint;
    for (;;) {
      const page = await this.timelines.homeEntriesByAuthor(followerId, followeeId, cursor);
      await Promise.all([
        this.timelines.removeHomeEntries(page.postIds.map((postId) => ({ userId: followerId, postId }))),
        this.timelines.removeRepostEntries(page.repostedPostIds.map((postId) => ({ userId: followerId, postId, reposterId: followeeId }))),
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
