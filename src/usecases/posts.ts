import { forbidden, notFound, unauthenticated } from '../domain/errors.js';
import { idKind, newId, requireIdOf } from '../domain/ids.js';
import type { PostRecord } from '../domain/models.js';
import { cleanText, idempotencyClaim, idempotencyKey, normalizeWords, refuseReusedKey } from '../domain/validation.js';
import type { GraphStore } from '../stores/graph/graph-store.js';
import { UNMETERED } from '../stores/graph/traversal.js';
import type { PostStore } from '../stores/post-store.js';
import type { Task } from '../domain/tasks.js';
import type { HomeRetention } from './home-retention.js';
import type { MentionResolver } from './mentions.js';
import type { NotificationEvents } from './notifications.js';
import type { BlockCheck } from './relationships.js';
import type { OutboxAuthors } from './outbox-authors.js';
import type { TaskEnqueuer } from './tasks/enqueuer.js';

export const POST_LIMITS = { text: 500, tags: 10 } as const;

export interface CreatePostInput {
  text: string;
  tags?: readonly string[] | null;
  idempotencyKey?: string | null;
}

export interface PostSettings {
  /** Authors with more followers than this are not fanned out (hybrid fan-out). */
  fanoutMaxFollowers: number;
  /** Authors with at least this many followers get posts with sharded counters. */
  hotAuthorFollowers: number;
  counterShards: number;
}

/** Where a new post's counters and copies go. */
export interface PostPlacement {
  counterShards: number;
  /** True: fanned out to the followers' home timelines; false: kept in the author's outbox. */
  fanOut: boolean;
}

/**
 * The placement rules, from the author's follower count: a hot author's posts get sharded
 * counters, and an author with more than FANOUT_MAX_FOLLOWERS followers is not fanned out.
 * createPost and the seed's bulk import both place posts with this one function.
 */
export function placePost(authorFollowers: number, settings: PostSettings): PostPlacement {
  return {
    counterShards: authorFollowers >= settings.hotAuthorFollowers ? settings.counterShards : 1,
    fanOut: authorFollowers <= settings.fanoutMaxFollowers,
  };
}

export class PostUseCases {
  constructor(
    private readonly posts: PostStore,
    private readonly graph: GraphStore,
    private readonly settings: PostSettings,
    private readonly outboxAuthors: OutboxAuthors,
    private readonly enqueuer: Pick<TaskEnqueuer, 'written'>,
    private readonly mentions: MentionResolver,
    private readonly blocks: BlockCheck,
    private readonly notifications: Pick<NotificationEvents, 'post' | 'written'>,
    private readonly homeRetention: HomeRetention,
    /** Told of each new post of an author who is not fanned out (live updates publish it). */
    private readonly postedToOutbox: (post: PostRecord) => void = () => {},
    /** What time a new post is written at (its `createdAt`, and the hour its tags count in). */
    private readonly now: () => number = Date.now,
  ) {}

  async create(viewerId: string | null, input: CreatePostInput): Promise<PostRecord> {
    if (!viewerId) throw unauthenticated();
    const text = cleanText(input.text, 'input.text', POST_LIMITS.text);
    const tags = normalizeWords(input.tags, 'input.tags', POST_LIMITS.tags);
    // Tags in any order are the same post: a client may build them from a set.
    const claim = idempotencyClaim(idempotencyKey(input.idempotencyKey, 'input.idempotencyKey'), [
      text,
      [...tags].sort(),
    ]);
    const [[counts], mentionIds] = await Promise.all([
      this.graph.counts([viewerId], UNMETERED),
      this.mentions.resolve(text),
    ]);
    await this.blocks.assertNotBlocked(viewerId, mentionIds);
    const { counterShards, fanOut } = placePost(counts?.followers ?? 0, this.settings);
    const post: PostRecord = {
      id: newId('pst'),
      authorId: viewerId,
      text,
      tags,
      createdAt: new Date(this.now()).toISOString(),
      counterShards,
      mentionIds,
    };
    const fanOutTask: Task | null = fanOut
      ? { id: newId('tsk'), payload: { kind: 'fanOut', postId: post.id, authorId: viewerId } }
      : null;
    const notify = this.notifications.post('MENTION', viewerId, post.id, mentionIds);
    const created = await this.posts.create(
      post,
      fanOutTask ? { kind: 'fanOut', task: fanOutTask, followers: counts?.followers ?? 0 } : { kind: 'outbox' },
      claim,
      this.homeRetention.expiresAt(post.id),
      notify,
    );
    if (created === 'authorClosed') throw unauthenticated('The account of this token was deleted');
    const { createdId, fingerprint } = created;
    // A retry: the key already created a post, and that post is the answer (if it is the same post).
    if (createdId !== post.id) {
      refuseReusedKey(claim, fingerprint, 'input.idempotencyKey', 'another post');
      return this.require(createdId, 'input.idempotencyKey');
    }
    if (fanOutTask) this.enqueuer.written([fanOutTask]);
    else {
      this.outboxAuthors.invalidate();
      this.postedToOutbox(post);
    }
    this.notifications.written(notify);
    return post;
  }

  async delete(viewerId: string | null, postId: string): Promise<string> {
    if (!viewerId) throw unauthenticated();
    const post = await this.require(postId, 'id');
    if (post.authorId !== viewerId) throw forbidden('Only the author may delete a post');
    const cleanup = {
      id: newId('tsk'),
      payload: {
        kind: 'deletePost' as const,
        postId,
        authorId: post.authorId,
        tags: post.tags,
        mentionIds: post.mentionIds,
      },
    };
    if (!(await this.posts.delete(post, cleanup))) throw notFound('Post', postId);
    this.enqueuer.written([cleanup]);
    return postId;
  }

  /** The post, or null for an unknown id (or one that is not a post id at all). */
  async get(postId: string, options: { consistent?: boolean } = {}): Promise<PostRecord | null> {
    if (idKind(postId) !== 'pst') return null;
    const [post] = await this.posts.getMany([postId], options);
    return post ?? null;
  }

  /** For mutations that act on a post: NOT_FOUND unless it exists. */
  async require(postId: string, field: string): Promise<PostRecord> {
    const post = await this.get(requireIdOf('pst', postId, field), { consistent: true });
    if (!post) throw notFound('Post', postId);
    return post;
  }
}
