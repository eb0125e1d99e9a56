import type { RepostStore } from '../../stores/repost-store.js';
import type { FollowerWalk } from './steps/follower-walk.js';
import type { HomeDelivery } from './steps/home-delivery.js';
import type { RepostHandler } from './repost.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/** Checkpoints of the repost's fan-out that an unrepost finishes with: this prefix, then that walk's own checkpoint. */
const REDELIVERY = 'redeliver:';

/**
 * `unrepost`: the reposter taken back as a reason from their own and their followers' home timelines. A repost made
 * again meanwhile may have lost entries to this, so the task then ends with that repost's fan-out.
 */
export class UnrepostHandler implements TaskHandler<'unrepost'> {
  readonly kind = 'unrepost';

  constructor(
    private readonly reposts: Pick<RepostStore, 'positionOf'>,
    private readonly followers: FollowerWalk,
    private readonly homes: HomeDelivery,
    private readonly repost: RepostHandler,
  ) {}

  async run(run: TaskRun<'unrepost'>): Promise<RunOutcome> {
    const { payload, checkpoint, save, stopping } = run;
    const { postId, reposterId } = payload;
    if (checkpoint?.startsWith(REDELIVERY)) return this.redeliver(run, checkpoint.slice(REDELIVERY.length) || null);
    if (await this.reposted(postId, reposterId)) return 'done';
    const entries = (userIds: readonly string[]) => userIds.map((userId) => ({ userId, postId, reposterId }));
    const firstPage = await this.followers.page(reposterId, checkpoint);
    if (checkpoint === null) await this.homes.withdraw(entries([reposterId]));
    const outcome = await this.followers.walk(reposterId, firstPage, save, stopping, {
      write: (followerIds) => this.homes.withdraw(entries(followerIds)),
    });
    if (outcome !== 'done' || !(await this.reposted(postId, reposterId))) return outcome;
    if (!(await save(REDELIVERY))) return 'lost';
    return this.redeliver(run, null);
  }

  /** The new repost's fan-out from `cursor`, at that repost's own position. */
  private async redeliver(run: TaskRun<'unrepost'>, cursor: string | null): Promise<RunOutcome> {
    const { postId, reposterId } = run.payload;
    const position = await this.reposts.positionOf(postId, reposterId, { consistent: true });
    if (position === null) return 'done';
    const save = (checkpoint: string) => run.save(`${REDELIVERY}${checkpoint}`);
    return this.repost.run({
      ...run,
      payload: { kind: 'repost', postId, reposterId, position },
      checkpoint: cursor,
      save,
    });
  }

  private async reposted(postId: string, reposterId: string): Promise<boolean> {
    return (await this.reposts.positionOf(postId, reposterId, { consistent: true })) !== null;
  }
}
