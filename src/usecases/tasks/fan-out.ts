import { settleAll } from '../../lib/collections.js';
import type { FanOutProgressStore } from '../../stores/fanout-progress-store.js';
import type { PostStore } from '../../stores/post-store.js';
import type { RepostStore } from '../../stores/repost-store.js';
import { currentPost } from './steps/current-state.js';
import type { FollowerWalk } from './steps/follower-walk.js';
import type { HomeDelivery, OnDelivered } from './steps/home-delivery.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/**
 * `fanOut`: a new post into its author's followers' home timelines. The post is read again after each page, as a
 * delete's cleanup may pass a follower before this reaches them (see Delete in docs/design/timelines.md).
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
    // A post nobody has reposted is in no follower's timeline for another reason: its entries need no read first.
    const unreposted = async () =>
      (await this.reposts.reposters(postId, { first: 1, after: null }, { consistent: true })).items.length === 0;
    const [post, firstPage, firstUnreposted] = await settleAll([
      currentPost(this.posts, postId),
      this.followers.page(authorId, checkpoint),
      unreposted(),
    ] as const);
    if (!post) return 'done';
    // The author's own entry was written with the post: announced with the first page.
    let unannounced = checkpoint === null ? [authorId] : [];
    let position = checkpoint;
    let check = Promise.resolve(firstUnreposted);
    const entries = (followerIds: readonly string[]) =>
      followerIds.map((userId) => ({ userId, postId, authorId, counterShards: post.counterShards }));
    return this.followers.walk(authorId, firstPage, save, stopping, {
      write: async (followerIds, last) => {
        const pageUnreposted = await check;
        // The next page's check is read while this page is written, so that no write waits on it; a walk that
        // ends before that page has no use for its answer, or its failure.
        check = last ? Promise.resolve(true) : unreposted();
        check.catch(() => {});
        await this.homes.deliver(entries(followerIds), { unreposted: pageUnreposted });
        this.onDelivered({
          postId,
          position: postId,
          authorId,
          counterShards: post.counterShards,
          repostedBy: null,
          userIds: [...unannounced, ...followerIds],
        });
        unannounced = [];
      },
      finish: async (followerIds, cursor) => {
        // The progress record goes with the post if it was deleted meanwhile, and is never written back (see advance).
        const [current] = await settleAll([
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
