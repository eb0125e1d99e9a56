import { notFound } from '../../domain/errors.js';
import type { UserRecord } from '../../domain/models.js';
import type { GraphQLContext } from '../context.js';
import { fanOutStatus } from '../../usecases/live-updates.js';
import { commentConnection, parentComment, userListConnection } from '../feeds.js';
import type { CommentResolvers, PostEdgeResolvers, PostResolvers } from '../generated/resolvers-types.js';
import { userById } from './user.js';

async function author(context: GraphQLContext, authorId: string): Promise<UserRecord> {
  const user = await userById(context, authorId);
  if (!user) throw notFound('User', authorId);
  return user;
}

export const Post: PostResolvers = {
  author: (post, _args, context) => author(context, post.authorId),
  likeCount: async (post, _args, { loaders }) => (await loaders.postCounts.load(post)).likeCount,
  viewCount: async (post, _args, { loaders }) => (await loaders.postCounts.load(post)).viewCount,
  commentCount: async (post, _args, { loaders }) => (await loaders.postCounts.load(post)).commentCount,
  reactionCounts: async (post, _args, { loaders }) => {
    const { reactions } = await loaders.postCounts.load(post);
    return [...reactions]
      .filter(([, count]) => count > 0)
      .sort(([kindA, a], [kindB, b]) => b - a || kindA.localeCompare(kindB))
      .map(([kind, count]) => ({ kind, count }));
  },
  viewerHasLiked: (post, _args, { loaders }) => loaders.viewerHasLiked.load(post.id),
  repostCount: async (post, _args, { loaders }) => (await loaders.postCounts.load(post)).repostCount,
  viewerHasReposted: (post, _args, { loaders }) => loaders.viewerHasReposted.load(post.id),
  likedBy: (post, args, context, info) => userListConnection(context, info, { kind: 'likedBy', post }, args),
  repostedBy: (post, args, context, info) => userListConnection(context, info, { kind: 'repostedBy', post }, args),
  mentions: (post, _args, context) => mentionedUsers(context, post.mentionIds),
  comments: (post, args, context) => commentConnection(context, post.id, null, args),
  fanOut: (post, _args, { viewerId, loaders }) =>
    fanOutStatus(viewerId, post, (postId) => loaders.fanOutProgress.load(postId)),
};

export const PostEdge: PostEdgeResolvers = {
  repostedBy: (edge, _args, context) => (edge.repostedBy ? userById(context, edge.repostedBy) : null),
};

export const Comment: CommentResolvers = {
  // The rules left out a comment whose author is gone (a deleted account's tombstone).
  author: (comment, _args, context) => author(context, comment.authorId ?? ''),
  text: (comment) => comment.text ?? '',
  mentions: (comment, _args, context) => mentionedUsers(context, comment.mentionIds),
  post: async (comment, _args, { loaders }) => {
    const post = await loaders.post.load(comment.postId);
    if (!post) throw notFound('Post', comment.postId);
    return post;
  },
  parent: (comment, _args, context) => parentComment(context, comment),
  depth: (comment) => comment.ancestorIds.length,
  replies: (comment, args, context) => commentConnection(context, comment.postId, comment, args),
};

/** The mentioned users that still exist, in order of first mention. */
async function mentionedUsers(context: GraphQLContext, ids: readonly string[]): Promise<UserRecord[]> {
  const users = await Promise.all(ids.map((id) => userById(context, id)));
  return users.filter((user): user is UserRecord => user !== null);
}
