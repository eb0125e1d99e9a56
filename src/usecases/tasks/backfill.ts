import type { GraphStore } from '../../stores/graph/graph-store.js';
import type { TimelineStore } from '../../stores/timeline-store.js';
import { stillFollows } from './steps/current-state.js';
import type { HomeDelivery } from './steps/home-delivery.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/** `backfill`: the followee's newest posts into the follower's home timeline, taken back if the follow ended meanwhile. */
export class BackfillHandler implements TaskHandler<'backfill'> {
  readonly kind = 'backfill';

  constructor(
    private readonly timelines: Pick<TimelineStore, 'authorPosts'>,
    private readonly graph: GraphStore,
    private readonly homes: HomeDelivery,
    /** FOLLOW_BACKFILL_POSTS: how many of the followee's newest posts a follow copies. */
    private readonly backfillPosts: number,
  ) {}

  async run({ payload: { followerId, followeeId } }: TaskRun<'backfill'>): Promise<RunOutcome> {
    if (!(await stillFollows(this.graph, followerId, followeeId)) || this.backfillPosts === 0) return 'done';
    const page = await this.timelines.authorPosts(followeeId, this.backfillPosts, null);
    const entries = page.entries.map((entry) => ({
      userId: followerId,
      postId: entry.postId,
      authorId: followeeId,
      counterShards: entry.counterShards,
    }));
    // Posts past HOME_RETENTION_DAYS are left out (see HomeDelivery).
    await this.homes.deliver(entries);
    if (!(await stillFollows(this.graph, followerId, followeeId)))
      await this.homes.withdraw(entries.map(({ userId, postId }) => ({ userId, postId, reposterId: null })));
    return 'done';
  }
}
