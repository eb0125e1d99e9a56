import { settleAll } from '../../lib/collections.js';
import type { PostRecord } from '../../domain/models.js';
import type { PostStore } from '../../stores/post-store.js';
import type { FollowerWalk } from './follower-walk.js';
import type { HomeDelivery } from './home-delivery.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/** The post, read strongly consistent; null once it is deleted. */
export async function currentPost(posts: Pick<PostStore, 'getMany'>, postId: string): Promise<PostRecord | null> {
  const [post] = await posts.getMany([postId], { consistent: true });
  return post ?? null;
}

/**
 * `fanOut`: copies a new post into its author's followers' home timelines. A delete may commit
 * while this runs, and its cleanup may pass a follower before this reaches them; so after a
 * page is written the post is read again (strongly consistent), and if it is gone the pages
 * written since are taken back and the fan-out ends. Either the delete came first and this
 * sees it, or it came after the page was written and its cleanup removes the page.
 */
export class PostFanOut implements TaskHandler<'fanOut'> {
  readonly kind = 'fanOut';

  constructor(
    private readonly posts: Pick<PostStore, 'getMany'>,
    private readonly followers: FollowerWalk,
    private readonly homes: HomeDelivery,
  ) {}

  async run({ payload: { postId, authorId }, checkpoint, save, stopping }: TaskRun<'fanOut'>): Promise<RunOutcome> {
    const [post, firstPage] = await settleAll([currentPost(this.posts, postId), this.followers.page(authorId, checkpoint)] as const);
    if (!post) return 'done';
    // The author's own entry was written with the post; counting it with the first page keeps the author's timeline bounded too.
    let uncounted = checkpoint === null ? [authorId] : [];
    const entries = (followerIds: readonly string[]) => followerIds.map((userId) => ({ userId, postId, authorId, counterShards: post.counterShards }));
    return this.followers.walk(authorId, firstPage, save, stopping, {
      write: (followerIds) => this.homes.deliver(entries(followerIds)),
      finish: async (followerIds) => {
        const counted = [...uncounted, ...followerIds];
        uncounted = [];
        const [, current] = await settleAll([this.homes.keepBounded(counted), currentPost(this.posts, postId)] as const);
        return current !== null;
      },
      takeBack: (followerIds) => this.homes.takeBack(entries(followerIds)),
    });
  }
}
