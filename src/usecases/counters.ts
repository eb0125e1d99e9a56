import { badInput, unauthenticated } from '../domain/errors.js';
import type { PostRecord } from '../domain/models.js';
import type { Logger } from '../logger.js';
import type { CounterChange, CounterStore } from '../stores/counter-store.js';
import type { CounterHeat } from './counter-heat.js';
import type { IdPage } from '../stores/graph/graph-store.js';
import { type TwoWayArgs, twoWayPageArgs, withOpaqueCursors } from './paging.js';
import type { NotificationEvents } from './notifications.js';
import type { PostUseCases } from './posts.js';
import type { BlockCheck } from './relationships.js';

/**
 * Likes, unique views and reactions, idempotent: the record and the counter are written together, so a
 * repeat changes nothing. FORBIDDEN across a block, except taking a like back.
 */
export class CounterUseCases {
  constructor(
    private readonly posts: PostUseCases,
    private readonly counters: CounterStore,
    /** REACTION_KINDS: a bounded set, so that a post's counter item stays small (see Counters in the README). */
    private readonly reactionKinds: readonly string[],
    private readonly blocks: BlockCheck,
    private readonly notifications: Pick<NotificationEvents, 'post' | 'written'>,
    /** Finds posts whose counter writes outgrow their shards (see Counters in the README). */
    private readonly heat: CounterHeat,
    private readonly logger: Logger,
  ) {}

  async likePost(viewerId: string | null, postId: string): Promise<PostRecord> {
    const { viewer, post } = await this.unblockedTarget(viewerId, postId);
    const notify = this.notifications.post('LIKE', viewer, post.id, [post.authorId]);
    if ((await this.counted(post, this.counters.like(post, viewer, notify))).changed)
      this.notifications.written(notify);
    return post;
  }

  async unlikePost(viewerId: string | null, postId: string): Promise<PostRecord> {
    const { viewer, post } = await this.target(viewerId, postId);
    const notify = this.notifications.post('LIKE', viewer, post.id, [post.authorId]);
    if ((await this.counted(post, this.counters.unlike(post, viewer, notify))).changed)
      this.notifications.written(notify);
    return post;
  }

  async viewPost(viewerId: string | null, postId: string): Promise<PostRecord> {
    const { viewer, post } = await this.unblockedTarget(viewerId, postId);
    await this.counted(post, this.counters.view(post, viewer));
    return post;
  }

  async react(viewerId: string | null, postId: string, kind: string): Promise<PostRecord> {
    if (!this.reactionKinds.includes(kind)) throw badInput('kind', `must be one of ${this.reactionKinds.join(', ')}`);
    const { viewer, post } = await this.unblockedTarget(viewerId, postId);
    await this.counted(post, this.counters.react(post, kind, viewer));
    return post;
  }

  /** Who liked the post, newest first. */
  async likers(postId: string, args: TwoWayArgs): Promise<IdPage> {
    return withOpaqueCursors(await this.counters.likers(postId, twoWayPageArgs(args)));
  }

  /**
   * Waits for a counter write and, when it changed a count, tells CounterHeat; a post it names
   * gets its shards raised here. A raise that fails is logged, not the caller's error: the write
   * it follows is done, and the next write past the limit tries again.
   */
  private async counted(post: PostRecord, write: Promise<CounterChange>): Promise<CounterChange> {
    const change = await write;
    if (!change.changed) return change;
    const to = this.heat.wrote(post);
    if (to === null) return change;
    try {
      if (await this.counters.raiseShards(post, to))
        this.logger.info('counter shards raised', { postId: post.id, from: post.counterShards, to });
    } catch (error) {
      this.logger.warn('raising counter shards failed', { postId: post.id, from: post.counterShards, to, error });
    }
    return change;
  }

  private async unblockedTarget(
    viewerId: string | null,
    postId: string,
  ): Promise<{ viewer: string; post: PostRecord }> {
    const target = await this.target(viewerId, postId);
    await this.blocks.assertNotBlocked(target.viewer, [target.post.authorId]);
    return target;
  }

  private async target(viewerId: string | null, postId: string): Promise<{ viewer: string; post: PostRecord }> {
    if (!viewerId) throw unauthenticated();
    return { viewer: viewerId, post: await this.posts.require(postId, 'postId') };
  }
}
