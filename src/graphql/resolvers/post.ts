import type { CommentResolvers, PostResolvers } from '../generated/resolvers-types.js';
import { notImplemented } from './not-implemented.js';

export const Post: PostResolvers = {
  author: () => notImplemented('Post.author'),
  likeCount: () => notImplemented('Post.likeCount'),
  viewCount: () => notImplemented('Post.viewCount'),
  commentCount: () => notImplemented('Post.commentCount'),
  reactionCounts: () => notImplemented('Post.reactionCounts'),
  viewerHasLiked: () => notImplemented('Post.viewerHasLiked'),
  comments: () => notImplemented('Post.comments'),
};

export const Comment: CommentResolvers = {
  author: () => notImplemented('Comment.author'),
};
