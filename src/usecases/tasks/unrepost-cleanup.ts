import type { RepostStore } from '../../stores/repost-store.js';
import type { FollowerWalk } from './follower-walk.js';
import type { HomeDelivery } from './home-delivery.js';
import type { RepostFanOut } from './repost-fan-out.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/**
 * `unrepost`: takes the reposter back as a reason from the home timelines of the reposter and
 * the reposter's followers; an entry left without a reason (no original, no other repost that
 * a follower follows) goes. Reposted again before this ran, it does nothing; reposted again
 * while it ran (the new repost's entries may have been taken back), it finishes with that
 * repost's fan-out.
 */
export class UnrepostCleanup implements TaskHandler<'unrepost'> {
  readonly kind = 'unrepost';

  constructor(
    private readonly reposts: Pick<RepostStore, 'hasReposted'>,
    private readonly followers: FollowerWalk,
    private readonly homes: HomeDelivery,
    private readonly fanOut: RepostFanOut,
  ) {}

  async run(run: TaskRun<'unrepost'>): Promise<RunOutcome> {
    const { payload, checkpoint, save, stopping } = run;
    const { postId, reposterId } = payload;
    if (await this.reposted(postId, reposterId)) return 'done';
    const entries = (userIds: readonly string[]) => userIds.map((userId) => ({ userId, postId, reposterId }));
    const firstPage = await this.followers.page(reposterId, checkpoint);
    if (checkpoint === null) await this.homes.takeBackReposts(entries([reposterId]));
    const outcome = await this.followers.walk(reposterId, firstPage, save, stopping, { write: (followerIds) => this.homes.takeBackReposts(entries(followerIds)) });
    if (outcome !== 'done' || !(await this.reposted(postId, reposterId))) return outcome;
    return this.fanOut.run({ ...run, payload: { kind: 'repost', postId, reposterId }, checkpoint: null });
  }

  private async reposted(postId: string, reposterId: string): Promise<boolean> {
    const [reposted] = await this.reposts.hasReposted([{ postId, userId: reposterId }], { consistent: true });
    return reposted === true;
  }
}
