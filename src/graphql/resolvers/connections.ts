import type { Page } from '../../domain/models.js';
import type { Resolvers } from '../generated/resolvers-types.js';

/** Relay page info from a keyset page (forwards, or backwards from `before`). */
export function pageInfo<T>(page: Page<T>) {
  return {
    hasNextPage: page.hasNextPage,
    hasPreviousPage: page.hasPreviousPage ?? false,
    startCursor: page.startCursor !== undefined ? page.startCursor : (page.items[0]?.cursor ?? null),
    endCursor: page.endCursor,
  };
}

export const connections: Pick<
  Resolvers,
  'UserConnection' | 'PostConnection' | 'CommentConnection' | 'NotificationConnection'
> = {
  UserConnection: {
    edges: (connection) => connection.page.items,
    pageInfo: (connection) => pageInfo(connection.page),
    totalCount: (connection) => connection.totalCount(),
  },
  PostConnection: {
    edges: (page) => page.items,
    pageInfo: (page) => pageInfo(page),
  },
  CommentConnection: {
    edges: (page) => page.items,
    pageInfo: (page) => pageInfo(page),
  },
  // Read backwards (`last`/`before`), a page can have groups before it (newer ones); forwards, after it.
  NotificationConnection: {
    edges: (page) => page.items,
    pageInfo: (page) => ({
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: page.startCursor,
      endCursor: page.endCursor,
    }),
  },
};
