import type { UserResolvers } from '../generated/resolvers-types.js';
import { notImplemented } from './not-implemented.js';

export const User: UserResolvers = {
  followerCount: () => notImplemented('User.followerCount'),
  followingCount: () => notImplemented('User.followingCount'),
  followers: () => notImplemented('User.followers'),
  following: () => notImplemented('User.following'),
  knownFollowers: () => notImplemented('User.knownFollowers'),
  mutuals: () => notImplemented('User.mutuals'),
  posts: () => notImplemented('User.posts'),
  timeline: () => notImplemented('User.timeline'),
  viewerFollows: () => notImplemented('User.viewerFollows'),
  followsViewer: () => notImplemented('User.followsViewer'),
};
