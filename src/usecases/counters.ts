import { badInput, unauthenticated } from '../domain/errors.js';
import type { PostRecord } from '../domain/models.js';
import type { CounterStore } from '../stores/counter-store.js';
import type { PostUseCases } from './posts.js';

const REACTION_KIND = /^[a-z_]{1,20}$/;

/**
 * Likes, unique views and reactions. Each is idempotent: the store writes the user's
 * record and the counter together, and a repeat finds the record and changes nothing.
 */
export class CounterUseCases {
  constructor(
    private readonly posts: PostUseCases,
    private readonly counters: CounterStore,
  ) {}

  async likePost(viewerId: string | null, postId: string): Promise<PostRecord> {
    const { viewer, post } = await this.target(viewerId, postId);
    await this.counters.like(post, viewer);
    return post;
  }

  async unlikePost(viewerId: string | null, postId: string): Promise<PostRecord> {
    const { viewer, post } = await this.target(viewerId, postId);
    await this.counters.unlike(post, viewer);
    return post;
  }

  async viewPost(viewerId: string | null, postId: string): Promise<PostRecord> {
    const { viewer, post } = await this.target(viewerId, postId);
    await this.counters.view(post, viewer);
    return post;
  }

  async react(viewerId: string | null, postId: string, kind: string): Promise<PostRecord> {
    if (!REACTION_KIND.test(kind)) throw badInput('kind', 'must be 1-20 characters of a-z and _');
    const { viewer, post } = await this.target(viewerId, postId);
    await this.counters.react(post, kind, viewer);
    return post;
  }

  private async target(viewerId: string | null, postId: string): Promise<{ viewer: string; post: PostRecord }> {
    if (!viewerId) throw unauthenticated();
    return { viewer: viewerId, post: await this.posts.require(postId, 'postId') };
  }
}
