/** Records as the stores keep them and the use cases pass them around. */
export interface UserRecord {
  id: string;
  handle: string;
  displayName: string | null;
  bio: string | null;
  interests: string[];
  createdAt: string;
  postCount: number;
  /**
   * Advanced by signing out everywhere and by a password change: an access token or session
   * issued at an older generation no longer works (checked per request by authenticate).
   */
  tokenGeneration: number;
  /** When deleteAccount closed it: its profile stays readable until the deletion task's last steps. */
  closedAt?: string;
}

/** An account at an identity provider: its issuer and the subject its tokens name. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
}

/** How an account proves who it is: a password (its scrypt hash) or a linked provider identity. */
export type Login = { passwordHash: string } | { identity: ProviderIdentity };

/** One item of a keyset-paginated list, with the opaque cursor that resumes after it. */
export interface PageItem<T> {
  cursor: string;
  node: T;
}

export interface Page<T> {
  items: PageItem<T>[];
  hasNextPage: boolean;
  /**
   * Where the page ended: the cursor of its last entry, even when that entry was left out
   * (its record was deleted meanwhile), so that a page that lost entries still leads on.
   */
  endCursor: string | null;
  /** Paging backwards: whether items remain beyond the page's start. */
  hasPreviousPage?: boolean;
  /** Where the page started as read, even when the rules left that entry out (absent: its first item). */
  startCursor?: string | null;
}

export interface PostRecord {
  id: string;
  authorId: string;
  text: string;
  tags: string[];
  createdAt: string;
  /** How many counter shards this post's counters are spread over (fixed at creation). */
  counterShards: number;
  /** The users its text mentions (resolved when it was written; see mentionedHandles), in order of first mention. */
  mentionIds: string[];
}

export interface CommentRecord {
  id: string;
  postId: string;
  /** Kept by a tombstone; null only on items written without one. */
  authorId: string | null;
  /** Null once deleted (a tombstone kept for its replies). */
  text: string | null;
  createdAt: string;
  /** The users its text mentions (resolved when it was written), in order of first mention; empty once deleted. */
  mentionIds: string[];
  /** The comments it replies to, the top-level one first and its parent last; empty for a top-level comment. */
  ancestorIds: string[];
  /** Its direct replies, tombstones included: what `replies` lists. */
  replyCount: number;
  /** A tombstone: deleted while it had replies. */
  deleted: boolean;
  /** The author of the comment replied to (its REPLY notification's recipient); null for a top-level comment. */
  replyToAuthorId: string | null;
}

export const parentIdOf = (comment: Pick<CommentRecord, 'ancestorIds'>): string | null =>
  comment.ancestorIds.at(-1) ?? null;

/** What a request's valid token says about who sends it; its account is checked by authenticate. */
export interface Credential {
  userId: string;
  /** The token generation of a service access token; null for a provider's token, which the service cannot revoke. */
  generation: number | null;
  /** The session a service access token belongs to; null for a provider's token or an old token. */
  sessionId: string | null;
}

export type NotificationKind = 'FOLLOW' | 'LIKE' | 'REPOST' | 'COMMENT' | 'MENTION' | 'REPLY';

/** What one actor did that notifies the recipient; `postId` is null for FOLLOW. */
export interface NotificationCause {
  recipientId: string;
  kind: NotificationKind;
  postId: string | null;
  actorId: string;
}
