import type { PostRecord } from '../../../domain/models.js';
import type { GraphStore } from '../../../stores/graph/graph-store.js';
import { UNMETERED } from '../../../stores/graph/traversal.js';
import type { PostStore } from '../../../stores/post-store.js';

/** The post, read strongly consistent; null once it is deleted. */
export async function currentPost(posts: Pick<PostStore, 'getMany'>, postId: string): Promise<PostRecord | null> {
  const [post] = await posts.getMany([postId], { consistent: true });
  return post ?? null;
}

export async function stillFollows(graph: GraphStore, followerId: string, followeeId: string): Promise<boolean> {
  const [follows] = await graph.follows([{ from: followerId, to: followeeId }], UNMETERED);
  return follows === true;
}
