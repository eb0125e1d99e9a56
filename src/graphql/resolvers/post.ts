import { notFound } from '../../domain/errors.js';
import type { UserRecord } from '../../domain/models.js';
import type { GraphQLContext } from '../context.js';
import type { CommentResolvers, PostResolvers } from '../generated/resolvers-types.js';
import { fanOutStatus } from '../../usecases/live-updates.js';
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
  comments: (post, { first, after }, { useCases }) => useCases.comments.list(post.id, first, after),
  fanOut: (post, _args, { viewerId, loaders }) => fanOutStatus(viewerId, post, (postId) => loaders.fanOutProgress.load(postId)),
};

export const Comment: CommentResolvers = {
  author: (comment, _args, context) => author(context, comment.authorId),
};
