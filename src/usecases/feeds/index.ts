import type { TimelineStore } from '../../stores/timeline-store.js';
import type { UserStore } from '../../stores/user-store.js';
import type { CommentUseCases } from '../comments.js';
import type { NotificationUseCases } from '../notifications.js';
import { AuthorFeed } from './author.js';
import { CommentFeed } from './comments.js';
import type { HomeFeed } from './home.js';
import { NotificationFeed } from './notifications.js';
import { PublicFeed } from './public.js';
import { SearchFeed } from './search.js';
import { TagFeed } from './tag.js';
import { type UserListSources, UserListFeed } from './user-lists.js';

/** What the feeds' skeletons read besides the timelines: the use cases that page through their lists. */
export interface FeedSources extends UserListSources {
  notifications: Pick<NotificationUseCases, 'list' | 'actors'>;
  comments: Pick<CommentUseCases, 'page'>;
}

/** Every feed the API pages through, each a module of its own in this folder. */
export function createFeeds(
  home: HomeFeed,
  timelines: TimelineStore,
  users: Pick<UserStore, 'search' | 'idsByHandle' | 'indexed'>,
  sources: FeedSources,
) {
  return {
    home,
    author: new AuthorFeed(timelines),
    tag: new TagFeed(timelines),
    public: new PublicFeed(timelines),
    comments: new CommentFeed(sources.comments),
    notifications: new NotificationFeed(sources.notifications),
    userLists: new UserListFeed(sources),
    search: new SearchFeed(users),
  };
}
