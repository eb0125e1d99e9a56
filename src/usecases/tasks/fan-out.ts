import { settleAll } from '../../lib/collections.js';
import type { FanOutProgressStore } from '../../stores/fanout-progress-store.js';
import type { PostStore } from '../../stores/post-store.js';
import type { RepostStore } from '../../stores/repost-store.js';
import { currentPost } from './steps/current-state.js';
import type { FollowerWalk } from './steps/follower-walk.js';
import type { HomeDelivery, OnDelivered } from './steps/home-delivery.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/**
 * `fanOut`: copies a new post into its author's followers' home timelines. A delete may commit
 * while this runs, and its cleanup may pass a follower before this reaches them; so after a
 * page is written the post is read again (strongly consistent), and if it is gone the pages
 * written since are taken back and the fan-out ends. Either the delete came first and this
 * sees it, or it came after the page was written and its cleanup removes the page.
 *
 * A post nobody has reposted yet — nearly every post while it fans out — is in no follower's
 * timeline for another reason, so its page of entries is written without reading the followers'
 * holdings first (one small read of the post's reposters per page instead of two per follower).
 * A repost made after that read and fanned out to a follower before the page is written gives that
 * follower two entries of the post, side by side in time: a page shows it once (mergeNewestFirst).
 */
export class FanOutHandler implements TaskHandler<'fanOut'> {
  readonly kind = 'fanOut';

  constructor(
    private readonly posts: Pick<PostStore, 'getMany'>,
    private readonly reposts: Pick<RepostStore, 'reposters'>,
    private readonly followers: FollowerWalk,
    private readonly homes: HomeDelivery,
    private readonly progress: Pick<FanOutProgressStore, 'advance'>,
    private readonly onDelivered: OnDelivered,
  ) {}

  async run({ payload: { postId, authorId }, checkpoint, save, stopping }: TaskRun<'fanOut'>): Promise<RunOutcome> {
    const [post, firstPage] = await settleAll([currentPost(this.posts, postId), this.followers.page(authorId, checkpoint)] as const);
    if (!post) return 'done';
    // The author's own entry was written with the post; counting it with the first page keeps the author's timeline bounded too.
    let uncounted = checkpoint === null ? [authorId] : [];
    // The author's own entry is announced with the first page too (live updates).
    let unannounced = checkpoint === null ? [authorId] : [];
    let position = checkpoint;
    const entries = (followerIds: readonly string[]) => followerIds.map((userId) => ({ userId, postId, authorId, counterShards: post.counterShards }));
    return this.followers.walk(authorId, firstPage, save, stopping, {
      write: async (followerIds) => {
        const reposted = await this.reposts.reposters(postId, 1, null, { consistent: true });
        await this.homes.deliver(entries(followerIds), { unreposted: reposted.items.length === 0 });
        this.onDelivered({ postId, position: postId, authorId, counterShards: post.counterShards, repostedBy: null, userIds: [...unannounced, ...followerIds] });
        unannounced = [];
      },
      finish: async (followerIds, cursor) => {
        const counted = [...uncounted, ...followerIds];
        uncounted = [];
        // The progress record goes with the post if it was deleted meanwhile, and is never written back (see advance).
        const [, current] = await settleAll([
          this.homes.keepBounded(counted),
          currentPost(this.posts, postId),
          this.progress.advance(postId, position, cursor, followerIds.length),
        ] as const);
        position = cursor;
        return current !== null;
      },
      takeBack: (followerIds) => this.homes.takeBack(entries(followerIds)),
    });
  }
}
