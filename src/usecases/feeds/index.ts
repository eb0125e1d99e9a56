import type { TimelineStore } from '../../stores/timeline-store.js';
import { TagFeed } from './tag.js';

/** Every feed the API pages through, each a module of its own in this folder. */
export function createFeeds(timelines: TimelineStore) {
  return {
    tag: new TagFeed(timelines),
  };
}

export type Feeds = ReturnType<typeof createFeeds>;
