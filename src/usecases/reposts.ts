import { unauthenticated } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { PostRecord } from '../domain/models.js';
import type { GraphStore, IdPage } from '../stores/graph/graph-store.js';
import { UNMETERED } from '../stores/graph/traversal.js';
import type { RepostStore } from '../stores/repost-store.js';
import type { Task } from '../domain/tasks.js';
import { type TimelineStore, repostPosition } from '../stores/timeline-store.js';
import { type TwoWayArgs, twoWayPageArgs, withOpaqueCursors } from './paging.js';
import type { NotificationEvents } from './notifications.js';
import type { HomeRetention } from './home-retention.js';
import type { OutboxAuthors } from './outbox-authors.js';
import type { BlockCheck } from './relationships.js';
import { type PostSettings, type PostUseCases, placePost } from './posts.js';
import type { TaskEnqueuer } from './tasks/enqueuer.js';

/**
 * Reposts, idempotent: the record, the count and the delivery are written together. A repost reaches followers
 * by the same hybrid rule as a post: a `repost` task, or the reposter's outbox.
 */
export class RepostUseCases {
  constructor(
    private readonly posts: PostUseCases,
    private readonly reposts: RepostStore,
    private readonly timelines: Pick<TimelineStore, 'addRepostEntries' | 'removeHomeReasons'>,
    private readonly graph: GraphStore,
    private readonly settings: PostSettings,
    private readonly outboxAuthors: OutboxAuthors,
    private readonly enqueuer: Pick<TaskEnqueuer, 'written'>,
    private readonly blocks: BlockCheck,
    private readonly notifications: Pick<NotificationEvents, 'post' | 'written'>,
    private readonly homeRetention: HomeRetention,
    /** Told of a repost by an author who is not fanned out: live timelines hear it on the reposter's channel, as an outbox author's post. */
    private readonly repostedToOutbox: (post: PostRecord, reposterId: string, position: string) => void = () => {},
  ) {}

  /** Reposts the post as the viewer (their own post too); NOT_FOUND when it does not exist, FORBIDDEN (nothing written) when its author is in a block with the viewer. */
  async repost(viewerId: string | null, postId: string): Promise<PostRecord> {
    if (!viewerId) throw unauthenticated();
    const post = await this.posts.require(postId, 'postId');
    await this.blocks.assertNotBlocked(viewerId, [post.authorId]);
    const [counts] = await this.graph.counts([viewerId], UNMETERED);
    const { fanOut } = placePost(counts?.followers ?? 0, this.settings);
    // Where the repost goes in timelines: at the time it is made (a retry that finds it made keeps the first one's).
    const position = repostPosition(viewerId);
    const task: Task | null = fanOut
      ? { id: newId('tsk'), payload: { kind: 'repost', postId: post.id, reposterId: viewerId, position } }
      : null;
    const notify = this.notifications.post('REPOST', viewerId, post.id, [post.authorId]);
    const added = await this.reposts.add(
      post,
      viewerId,
      task ? { kind: 'fanOut', task } : { kind: 'outbox' },
      position,
      notify,
    );
    if (added) this.notifications.written(notify);
    if (task) {
      if (added) this.enqueuer.written([task]);
    } else {
      // Not fanned out, the reposter's own timeline gets its entry here (the task writes it otherwise); a retry finds it there.
      this.outboxAuthors.invalidate();
      await this.timelines.addRepostEntries(
        [
          {
            userId: viewerId,
            postId: post.id,
            authorId: post.authorId,
            counterShards: post.counterShards,
            repostedBy: viewerId,
            position,
            expiresAt: this.homeRetention.expiresAt(position),
          },
        ],
        { horizon: this.homeRetention.horizon() },
      );
      if (added) this.repostedToOutbox(post, viewerId, position);
    }
    return post;
  }

  async unrepost(viewerId: string | null, postId: string): Promise<PostRecord> {
    if (!viewerId) throw unauthenticated();
    const post = await this.posts.require(postId, 'postId');
    await this.undo(viewerId, post.id, this.notifications.post('REPOST', viewerId, post.id, [post.authorId]));
    return post;
  }

  /**
   * Removes the user's repost of the post, if any, and takes it back from timelines; for unrepost
   * (with its notification's `notify` tasks), a deleted post and a deleted account.
   */
  async undo(userId: string, postId: string, notify: readonly Task[] = []): Promise<void> {
    const task: Task = { id: newId('tsk'), payload: { kind: 'unrepost', postId, reposterId: userId } };
    const removed = await this.reposts.remove(postId, userId, task, notify);
    if (removed) this.notifications.written(notify);
    if (removed?.delivery === 'fanOut') this.enqueuer.written([task]);
    // The entry `repost` wrote in an outbox reposter's own timeline (nothing to do for others, or a retry: idempotent).
    else await this.timelines.removeHomeReasons([{ userId, postId, reposterId: userId }]);
  }

  /** Undoes one batch of a deleted post's reposts; true while more are left. */
  async undoBatch(postId: string, size: number): Promise<boolean> {
    // Strongly consistent: the batch before removed its reposts, and must not be read again.
    const page = await this.reposts.reposters(postId, { first: size, after: null }, { consistent: true });
    for (const { id } of page.items) await this.undo(id, postId);
    return page.hasNextPage;
  }

  /** Who reposted the post, newest first. */
  async reposters(postId: string, args: TwoWayArgs): Promise<IdPage> {
    return withOpaqueCursors(await this.reposts.reposters(postId, twoWayPageArgs(args)));
  }
}
