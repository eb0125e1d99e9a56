import type { Tokens } from '../../auth/tokens.js';
import type { SessionGrant } from '../../usecases/sessions.js';
import type { MutationResolvers } from '../generated/resolvers-types.js';
import type { Loaders } from '../loaders.js';
import { loadUsers } from './graph.js';

/** Both users of a follow, block or mute change, loaded after it so that their counts and flags show it. */
async function followPayload(loaders: Loaders, viewerId: string, userId: string) {
  const [viewer, user] = await loadUsers(loaders, [viewerId, userId]);
  return { viewer: viewer!, user: user! };
}

/** The session as the client gets it: the grant's access token signed. */
async function session(tokens: Tokens, grant: SessionGrant) {
  const access = await tokens.sign(grant.access);
  return { user: grant.user, token: access.token, expiresAt: access.expiresAt, refreshToken: grant.refreshToken };
}

export const Mutation: MutationResolvers = {
  signUp: async (_parent, { input }, { useCases, loaders, tokens, viewerId, identity, clientAddress }) => {
    const user = await useCases.users.signUp(input, identity, viewerId, clientAddress);
    loaders.user.prime(user.id, user);
    return session(tokens, await useCases.sessions.start(user));
  },
  signIn: async (_parent, { input }, { useCases, loaders, tokens, clientAddress }) => {
    const grant = await useCases.sessions.signIn(input, clientAddress);
    loaders.user.prime(grant.user.id, grant.user);
    return session(tokens, grant);
  },
  refreshSession: async (_parent, { refreshToken }, { useCases, loaders, tokens }) => {
    const grant = await useCases.sessions.refresh(refreshToken);
    loaders.user.prime(grant.user.id, grant.user);
    return session(tokens, grant);
  },
  signOut: (_parent, { refreshToken, everywhere }, { useCases, credential }) =>
    useCases.sessions.signOut(credential, refreshToken, everywhere),
  changePassword: (_parent, { currentPassword, newPassword }, { useCases, credential, clientAddress }) =>
    useCases.sessions.changePassword(credential, currentPassword, newPassword, clientAddress),
  deleteAccount: async (_parent, { password }, { useCases, credential, clientAddress }) => ({
    deletedUserId: await useCases.accountDeletion.request(credential, password, clientAddress),
  }),

  updateProfile: async (_parent, { input }, { useCases, viewerId, loaders }) => {
    const user = await useCases.users.updateProfile(viewerId, input);
    loaders.user.clear(user.id).prime(user.id, user);
    return user;
  },

  follow: async (_parent, { userId }, { useCases, viewerId, loaders }) => {
    await useCases.follows.follow(viewerId, userId);
    return followPayload(loaders, viewerId!, userId);
  },
  unfollow: async (_parent, { userId }, { useCases, viewerId, loaders }) => {
    await useCases.follows.unfollow(viewerId, userId);
    return followPayload(loaders, viewerId!, userId);
  },
  block: async (_parent, { userId }, { useCases, viewerId, loaders }) => {
    await useCases.relationships.block(viewerId, userId);
    return followPayload(loaders, viewerId!, userId);
  },
  unblock: async (_parent, { userId }, { useCases, viewerId, loaders }) => {
    await useCases.relationships.unblock(viewerId, userId);
    return followPayload(loaders, viewerId!, userId);
  },
  mute: async (_parent, { userId }, { useCases, viewerId, loaders }) => {
    await useCases.relationships.mute(viewerId, userId);
    return followPayload(loaders, viewerId!, userId);
  },
  unmute: async (_parent, { userId }, { useCases, viewerId, loaders }) => {
    await useCases.relationships.unmute(viewerId, userId);
    return followPayload(loaders, viewerId!, userId);
  },
  createPost: async (_parent, { input }, { useCases, viewerId, loaders }) => {
    const post = await useCases.posts.create(viewerId, input);
    loaders.post.prime(post.id, post);
    return { post };
  },
  deletePost: async (_parent, { id }, { useCases, viewerId }) => ({
    deletedPostId: await useCases.posts.delete(viewerId, id),
  }),
  likePost: async (_parent, { postId }, { useCases, viewerId }) => ({
    post: await useCases.counters.likePost(viewerId, postId),
  }),
  unlikePost: async (_parent, { postId }, { useCases, viewerId }) => ({
    post: await useCases.counters.unlikePost(viewerId, postId),
  }),
  repost: async (_parent, { postId }, { useCases, viewerId }) => ({
    post: await useCases.reposts.repost(viewerId, postId),
  }),
  unrepost: async (_parent, { postId }, { useCases, viewerId }) => ({
    post: await useCases.reposts.unrepost(viewerId, postId),
  }),
  viewPost: async (_parent, { postId }, { useCases, viewerId }) => ({
    post: await useCases.counters.viewPost(viewerId, postId),
  }),
  react: async (_parent, { postId, kind }, { useCases, viewerId }) => ({
    post: await useCases.counters.react(viewerId, postId, kind),
  }),
  addComment: async (_parent, { postId, text, idempotencyKey, replyTo }, { useCases, viewerId }) =>
    useCases.comments.add(viewerId, postId, text, idempotencyKey, replyTo),
  deleteComment: async (_parent, { commentId }, { useCases, viewerId }) =>
    useCases.comments.delete(viewerId, commentId),
  markNotificationsRead: async (_parent, { until }, { useCases, viewerId, loaders }) =>
    loaders.user.load(await useCases.notifications.markRead(viewerId, until)),
};
