import type { TimelineStore } from '../../stores/timeline-store.js';
import { AuthorFeed } from './author.js';
import type { HomeFeed } from './home.js';
import { PublicFeed } from './public.js';
import { TagFeed } from './tag.js';

/** Every feed the API pages through, each a module of its own in this folder. */
export function createFeeds(home: HomeFeed, timelines: TimelineStore) {
  return {
    home,
    author: new AuthorFeed(timelines),
    tag: new TagFeed(timelines),
    public: new PublicFeed(timelines),
  };
}

export type Feeds = ReturnType<typeof createFeeds>;
