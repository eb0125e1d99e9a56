import type { PostRecord, UserRecord } from '../domain/models.js';
import type { NotificationGroup } from '../stores/notification-store.js';
import type { Hydrator } from './feeds/pipeline.js';
import { hiddenUsers } from './feeds/visibility.js';

/**
 * The feed pipeline (feeds/pipeline.ts) for notifications: the skeleton is a page of groups with
 * their newest actors' ids; hydration asks for the groups' posts, the actors and the relations
 * the rules need in one wave; the rules leave out the actors the viewer blocks, is blocked by or
 * mutes (and deleted accounts), and a group with none left or whose post is gone or by an account
 * in a block with the viewer.
 */
export interface GroupSkeleton {
  cursor: string;
  group: NotificationGroup;
  actorIds: string[];
}

export interface HydratedGroup {
  cursor: string;
  group: NotificationGroup;
  post: PostRecord | null;
  actors: UserRecord[];
}

/** Hydration and rules in one: what the viewer sees of each group, aligned with the skeleton (null: not shown). */
export async function notificationRules(skeleton: readonly GroupSkeleton[], viewerId: string, hydrator: Hydrator): Promise<(HydratedGroup | null)[]> {
  const postIds = [...new Set(skeleton.flatMap((entry) => (entry.group.postId === null ? [] : [entry.group.postId])))];
  const actorIds = [...new Set(skeleton.flatMap((entry) => entry.actorIds))];
  const [posts, users, hidden] = await Promise.all([hydrator.posts(postIds), hydrator.users(actorIds), hiddenUsers(viewerId, actorIds, true, hydrator)]);
  // A group about a post whose author is in a block with the viewer (a mention under it, say) is left out like the post.
  const blockedAuthors = await hiddenUsers(
    viewerId,
    posts.flatMap((post) => (post ? [post.authorId] : [])),
    false,
    hydrator,
  );
  const postById = new Map(postIds.map((id, i) => [id, posts[i] && !blockedAuthors.has(posts[i].authorId) ? posts[i] : null]));
  const userById = new Map(actorIds.map((id, i) => [id, users[i] ?? null]));
  return skeleton.map((entry) => {
    const post = entry.group.postId === null ? null : (postById.get(entry.group.postId) ?? null);
    if (entry.group.postId !== null && post === null) return null;
    const actors = visibleActors(entry.actorIds, userById, hidden);
    return actors.length === 0 ? null : { cursor: entry.cursor, group: entry.group, post, actors };
  });
}

/** The actors the viewer sees, in the order given. */
export function visibleActors(actorIds: readonly string[], users: ReadonlyMap<string, UserRecord | null>, hidden: ReadonlySet<string>): UserRecord[] {
  return actorIds.flatMap((id) => {
    const user = users.get(id);
    return user && !hidden.has(id) ? [user] : [];
  });
}
