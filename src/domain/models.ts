/** Records as the stores keep them and the use cases pass them around. */
export interface UserRecord {
  id: string;
  handle: string;
  displayName: string | null;
  bio: string | null;
  interests: string[];
  createdAt: string;
  postCount: number;
}

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
}

export interface PostRecord {
  id: string;
  authorId: string;
  text: string;
  tags: string[];
  createdAt: string;
  /** How many counter shards this post's counters are spread over (fixed at creation). */
  counterShards: number;
}

export interface CommentRecord {
  id: string;
  postId: string;
  authorId: string;
  text: string;
  createdAt: string;
}
