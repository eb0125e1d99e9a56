import { Random, ZipfSampler } from './random.js';

/**
 * A synthetic social network, generated in memory from a seed before anything is written.
 * Users are referred to by index; the same options always give the same network.
 *
 * - Follows: each follow picks its followee by popularity and its follower by activity, each
 *   half uniformly and half from a Zipf distribution over a shuffled ranking. The Zipf half
 *   gives the long tail of real networks (a few accounts with thousands of followers), the
 *   uniform half gives everyone some (most accounts have tens).
 * - Posts: authors are drawn by activity (independent of popularity), tags mostly from the
 *   author's interests.
 * - Likes: mostly by a user for a post of someone they follow.
 */
export interface NetworkOptions {
  users: number;
  follows: number;
  posts: number;
  likes: number;
  seed: number;
  /** How many days the simulated history spans (30 when absent); home timelines keep its last HOME_RETENTION_DAYS. */
  days?: number;
  /** The simulated history ends here: the newest post is just before this time. */
  endMs: number;
}

export interface SeedUser {
  handle: string;
  displayName: string;
  bio: string;
  interests: string[];
  createdAtMs: number;
}

export interface SeedFollow {
  from: number;
  to: number;
  atMs: number;
}

export interface SeedPost {
  author: number;
  text: string;
  tags: string[];
  createdAtMs: number;
}

export interface SeedLike {
  user: number;
  post: number;
}

export interface Network {
  users: SeedUser[];
  follows: SeedFollow[];
  posts: SeedPost[];
  likes: SeedLike[];
  /** Follower count of each user, by index. */
  followerCounts: number[];
  /** The seed it was generated from (the records' ids are drawn from it too). */
  seed: number;
  /** The end of its history: the time of its likes. */
  endMs: number;
}

/**
 * `small` is `npm run seed`'s default: a network to explore that a newcomer can wait for (about 47,000 items, a
 * minute or two on DynamoDB Local); `full` (about 1.6 million items) is the benchmark's. See docs/running.md.
 */
export const SEED_SIZES = {
  small: { users: 800, follows: 5_000, posts: 1_200, likes: 2_500, seed: 42, days: 30 },
  // Longer than HOME_RETENTION_DAYS, as a service's history is: a third of the posts are in home timelines.
  full: { users: 10_000, follows: 200_000, posts: 50_000, likes: 100_000, seed: 42, days: 90 },
} as const;
export type SizeName = keyof typeof SEED_SIZES;

const DAY_MS = 24 * 3600 * 1000;
export const DEFAULT_HISTORY_DAYS = 30;
/** Users join in the first 2 days, follows start after them and posts after 3: the least history that holds them. */
export const MIN_HISTORY_DAYS = 5;
/** Ten years: ids carry their time, and one from before 1970 would not be an id. */
export const MAX_HISTORY_DAYS = 3650;

const TOPICS = [
  'music',
  'photography',
  'rust',
  'typescript',
  'climbing',
  'cooking',
  'football',
  'chess',
  'gardening',
  'astronomy',
  'poetry',
  'cycling',
  'film',
  'travel',
  'math',
  'history',
  'coffee',
  'design',
  'running',
  'gaming',
  'birds',
  'books',
  'databases',
  'jazz',
];
const FIRST_NAMES = [
  'ada',
  'alan',
  'grace',
  'linus',
  'edsger',
  'barbara',
  'ken',
  'margaret',
  'donald',
  'frances',
  'john',
  'radia',
  'tim',
  'hedy',
  'dennis',
  'katherine',
  'guido',
  'sophie',
  'bjarne',
  'lynn',
  'niklaus',
  'joan',
  'leslie',
  'anita',
  'yukihiro',
  'shafi',
  'brian',
  'annie',
  'james',
  'mary',
];
const LAST_NAMES = [
  'lovelace',
  'turing',
  'hopper',
  'torvalds',
  'dijkstra',
  'liskov',
  'thompson',
  'hamilton',
  'knuth',
  'allen',
  'mccarthy',
  'perlman',
  'lee',
  'lamarr',
  'ritchie',
  'johnson',
  'rossum',
  'wilson',
  'stroustrup',
  'conway',
  'wirth',
  'clarke',
  'lamport',
  'borg',
  'matsumoto',
  'goldwasser',
  'kernighan',
  'easley',
  'gosling',
  'kenyon',
];
const OPENERS = [
  'Just tried',
  'Thinking about',
  'Finally finished',
  'Loving',
  'Notes on',
  'Hot take on',
  'Week three of',
  'Still learning',
];
const OBJECTS = [
  'a new approach to',
  'the basics of',
  'an old book about',
  'a long weekend of',
  'my favourite',
  'a tiny project on',
  'the history of',
];
const CLOSERS = [
  'Worth it.',
  'More soon.',
  'Any tips?',
  'Highly recommended.',
  'Not what I expected.',
  'Back at it tomorrow.',
  '',
];

/** Most users, follows, posts or likes one network may hold: it is built in memory, so past this it is refused in words. */
export const MAX_NETWORK_COUNT = 20_000_000;

/** A size the generator refuses: its message names the flag to change. */
export class NetworkSizeError extends Error {}

export function generateNetwork(options: NetworkOptions): Network {
  const { users: n, seed } = options;
  for (const name of ['users', 'follows', 'posts', 'likes'] as const)
    if (options[name] > MAX_NETWORK_COUNT) throw new NetworkSizeError(`--${name} must be at most ${MAX_NETWORK_COUNT}`);
  if (n < 2) throw new NetworkSizeError('--users must be at least 2');
  if (options.follows > (n * (n - 1)) / 2)
    throw new NetworkSizeError(`--follows must be at most ${(n * (n - 1)) / 2} for ${n} users`);
  if (options.posts < 1 && options.likes > 0) throw new NetworkSizeError('--likes needs at least one post');
  const days = options.days ?? DEFAULT_HISTORY_DAYS;
  if (!Number.isInteger(days) || days < MIN_HISTORY_DAYS || days > MAX_HISTORY_DAYS)
    throw new NetworkSizeError(`--days must be from ${MIN_HISTORY_DAYS} to ${MAX_HISTORY_DAYS}`);
  const historyMs = days * DAY_MS;
  const random = new Random(seed);
  const startMs = options.endMs - historyMs;
  // Independent rankings: being followed a lot and posting a lot are different traits.
  const popularity = random.permutation(n);
  const activity = random.permutation(n);
  const popular = new ZipfSampler(n, 1);
  const active = new ZipfSampler(n, 0.8);
  const byPopularity = () => (random.next() < 0.5 ? random.below(n) : popularity[popular.draw(random)]!);
  const byActivity = () => (random.next() < 0.5 ? random.below(n) : activity[active.draw(random)]!);

  const users = generateUsers(random, n, startMs);

  const follows: SeedFollow[] = [];
  const followerCounts = new Array<number>(n).fill(0);
  const following: number[][] = Array.from({ length: n }, () => []);
  const seen = new Set<number>();
  const followSpan = historyMs - 4 * DAY_MS;
  while (follows.length < options.follows) {
    const from = byActivity();
    const to = byPopularity();
    if (from === to || seen.has(from * n + to)) continue;
    seen.add(from * n + to);
    follows.push({
      from,
      to,
      atMs: startMs + 2 * DAY_MS + Math.floor((follows.length / options.follows) * followSpan),
    });
    followerCounts[to]! += 1;
    following[from]!.push(to);
  }

  const posts: SeedPost[] = [];
  const postsBy: number[][] = Array.from({ length: n }, () => []);
  const postSpan = historyMs - 3 * DAY_MS - 60_000;
  for (let i = 0; i < options.posts; i++) {
    const author = byActivity();
    postsBy[author]!.push(i);
    posts.push({
      author,
      ...postContent(random, users[author]!.interests),
      createdAtMs: startMs + 3 * DAY_MS + Math.floor((i / options.posts) * postSpan),
    });
  }

  const likes: SeedLike[] = [];
  const liked = new Set<number>();
  const maxLikes = Math.min(options.likes, n * options.posts);
  while (likes.length < maxLikes) {
    const user = byActivity();
    const followee = following[user]!.length > 0 ? random.pick(following[user]!) : null;
    const candidates =
      followee !== null && postsBy[followee]!.length > 0 && random.next() < 0.8 ? postsBy[followee]! : null;
    const post = candidates ? random.pick(candidates) : random.below(options.posts);
    if (liked.has(post * n + user)) continue;
    liked.add(post * n + user);
    likes.push({ user, post });
  }

  return { users, follows, posts, likes, followerCounts, seed, endMs: options.endMs };
}

function generateUsers(random: Random, n: number, startMs: number): SeedUser[] {
  const topicRank = new ZipfSampler(TOPICS.length, 0.7);
  return Array.from({ length: n }, (_, i) => {
    const first = random.pick(FIRST_NAMES);
    const last = random.pick(LAST_NAMES);
    const interests = new Set<string>();
    const wanted = random.between(1, 4);
    while (interests.size < wanted) interests.add(TOPICS[topicRank.draw(random)]!);
    const [topic] = interests;
    return {
      // The index keeps handles unique; names make them readable.
      handle: `${first}_${last}_${i}`,
      displayName: `${first[0]!.toUpperCase()}${first.slice(1)} ${last[0]!.toUpperCase()}${last.slice(1)}`,
      bio: `Into ${[...interests].join(', ')}.${topic === 'coffee' ? ' Runs on espresso.' : ''}`,
      interests: [...interests],
      createdAtMs: startMs + Math.floor((i / n) * 2 * DAY_MS),
    };
  });
}

function postContent(random: Random, interests: readonly string[]): { text: string; tags: string[] } {
  const tags = new Set<string>();
  const wanted = random.between(0, 3);
  while (tags.size < wanted) tags.add(random.next() < 0.8 ? random.pick(interests) : random.pick(TOPICS));
  const subject = tags.size > 0 ? [...tags][0]! : random.pick(interests);
  const text = `${random.pick(OPENERS)} ${random.pick(OBJECTS)} ${subject}. ${random.pick(CLOSERS)}`.trim();
  return { text, tags: [...tags] };
}
