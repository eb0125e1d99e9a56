import type { CommentRecord, Page, PageItem, PostRecord, UserRecord } from '../domain/models.js';
import type { NotificationGroup } from '../stores/notification-store.js';

/** What connection resolvers receive as their parent: a page plus a lazy total, computed only when asked. */
export interface UserConnectionModel {
  page: Page<UserRecord>;
  totalCount: () => Promise<number>;
}

export type UserEdgeModel = PageItem<UserRecord>;
/** A post in a timeline, with the account whose repost put it there (null or absent: an original). */
export type PostEdgeModel = PageItem<PostRecord> & { repostedBy?: string | null };
export type PostConnectionModel = Page<PostRecord> & { items: PostEdgeModel[] };
export type CommentConnectionModel = Page<CommentRecord>;
export type CommentEdgeModel = PageItem<CommentRecord>;

/** Users are referenced by id so that a whole list of suggestions loads its users in one batch. */
export interface SuggestionModel {
  userId: string;
  mutualCount: number;
  viaIds: string[];
}

export interface SeparationModel {
  degrees: number | null;
  pathIds: string[];
}

/** A notification group as the viewer sees it: the actors the rules kept, hydrated. */
export interface NotificationEdgeModel {
  cursor: string;
  node: NotificationGroup;
}

export interface NotificationConnectionModel {
  items: NotificationEdgeModel[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  /** The first and last group read, even when the rules left them out, so that a page they emptied still leads on. */
  startCursor: string | null;
  endCursor: string | null;
}
