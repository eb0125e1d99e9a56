import { settleAll } from '../../lib/collections.js';
import type { PostStore } from '../../stores/post-store.js';
import { repostPosition } from '../../stores/timeline-store.js';
import type { RepostStore } from '../../stores/repost-store.js';
import { currentPost } from './steps/current-state.js';
import type { FollowerWalk } from './steps/follower-walk.js';
import type { HomeDelivery, OnDelivered } from './steps/home-delivery.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/**
 * `repost`: the post into the reposter's and their followers' home timelines at the repost's position, the reposter
 * as its reason. Both are read again after each page, as with `fanOut`: an unrepost or delete ends it.
 */
export class RepostHandler implements TaskHandler<'repost'> {
  readonly kind = 'repost';

  constructor(
    private readonly posts: Pick<PostStore, 'getMany'>,
    private readonly reposts: Pick<RepostStore, 'hasReposted'>,
    private readonly followers: FollowerWalk,
    private readonly homes: HomeDelivery,
    private readonly onDelivered: OnDelivered,
  ) {}

  async run({ payload, checkpoint, save, stopping }: TaskRun<'repost'>): Promise<RunOutcome> {
    const { postId, reposterId } = payload;
    const [post, firstPage] = await settleAll([
      this.stillReposted(postId, reposterId),
      this.followers.page(reposterId, checkpoint),
    ] as const);
    if (!post) return 'done';
    // Tasks queued before repost positions existed carry none.
    const position = payload.position ?? repostPosition(reposterId);
    const entries = (userIds: readonly string[]) =>
      userIds.map((userId) => ({
        userId,
        postId,
        authorId: post.authorId,
        counterShards: post.counterShards,
        repostedBy: reposterId,
        position,
      }));
    // Announced to every receiver: one that had the post already gets it again with its new reason.
    const deliver = async (userIds: string[]) => {
      await this.homes.deliverReposts(entries(userIds));
      this.onDelivered({
        postId,
        position,
        authorId: post.authorId,
        counterShards: post.counterShards,
        repostedBy: reposterId,
        userIds,
      });
    };
    if (checkpoint === null) await deliver([reposterId]);
    return this.followers.walk(reposterId, firstPage, save, stopping, {
      write: deliver,
      finish: async () => (await this.stillReposted(postId, reposterId)) !== null,
      takeBack: (followerIds) => this.homes.withdraw(followerIds.map((userId) => ({ userId, postId, reposterId }))),
    });
  }

  /** The post while it exists and the reposter still reposts it; null otherwise. */
  private async stillReposted(postId: string, reposterId: string) {
    const [post, [reposted]] = await settleAll([
      currentPost(this.posts, postId),
      this.reposts.hasReposted([{ postId, userId: reposterId }], { consistent: true }),
    ] as const);
    return post && reposted ? post : null;
  }
}
