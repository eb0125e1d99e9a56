import { describe, expect, it } from 'vitest';
import { KEY_DESIGN, type KeyDesignRow } from '../../src/stores/dynamo/key-design.js';
import { keys, type Key } from '../../src/stores/dynamo/keys.js';

const user = 'usr_01J9ZC0000000000000000000A';
const other = 'usr_01J9ZC0000000000000000000B';
const post = 'pst_01J9ZC0000000000000000000C';
const position = keys.followListPosition(1_764_000_000_000, other);

/** Keys made by every builder (the ones that return a part of a key, inside a whole key); a new builder without one does not compile. */
const made: Record<keyof typeof keys, Key[]> = {
  user: [keys.user(user)],
  healthProbe: [keys.healthProbe()],
  handle: [keys.handle('ada')],
  searchEntry: [keys.searchEntry('zo', 'zoe', user)],
  login: [keys.login(user)],
  identityLink: [keys.identityLink('https://id.example.com/', 'auth0|42')],
  session: [keys.session(user, 'ses_1')],
  refreshToken: [keys.refreshToken('9f86d081884c7d65')],
  signInAttempts: [
    keys.signInAttempts('handle', 'ada', 1_764_000_000),
    keys.signInAttempts('address', '192.0.2.1', 1_764_000_000),
    keys.signInAttempts('checks', '192.0.2.1', 1_764_000_000),
  ],
  graphNode: [keys.graphNode(user)],
  followEdge: [keys.followEdge(user, other)],
  followingList: [{ pk: keys.followingList(user), sk: position }],
  followersList: [{ pk: keys.followersList(user), sk: position }],
  followListPosition: [{ pk: keys.followingList(user), sk: position }],
  relationEdge: [keys.relationEdge('blocks', user, other), keys.relationEdge('mutes', user, other)],
  relationList: (['blocks', 'mutes'] as const).flatMap((kind) =>
    (['OUT', 'IN'] as const).map((direction) => ({
      pk: keys.relationList(kind, user),
      sk: keys.relationListPosition(direction, position),
    })),
  ),
  relationListPosition: [{ pk: keys.relationList('blocks', user), sk: keys.relationListPosition('IN', position) }],
  counterShard: [keys.counterShard(post, 0), keys.counterShard(post, 63)],
  like: [keys.like(post, user)],
  likeListEntry: [keys.likeListEntry(post, 1_764_000_000_000, user)],
  repost: [keys.repost(post, user)],
  repostListEntry: [keys.repostListEntry(post, 1_764_000_000_000, user)],
  userRepost: [keys.userRepost(user, `${post}#${user}`)],
  view: [keys.view(post, user)],
  reaction: [keys.reaction(post, 'love', user)],
  post: [keys.post(post)],
  fanOutProgress: [keys.fanOutProgress(post)],
  authorPost: [keys.authorPost(user, post)],
  homeEntry: [keys.homeEntry(user, post), keys.homeEntry(user, `${post}#${other}`)],
  homeMarker: [keys.homeMarker(user, post)],
  outboxEntry: [keys.outboxEntry(user, post)],
  outboxAuthor: [keys.outboxAuthor(user)],
  tagEntry: [keys.tagEntry('engines', 3, post)],
  publicEntry: [keys.publicEntry(0, post)],
  trendCount: [keys.trendCount(490_007, 3, 'engines')],
  tagTotal: [keys.tagTotal('engines', 1)],
  commentEntry: [keys.commentEntry(post, 'cmt_1')],
  threadEntry: [
    keys.threadEntry({ postId: post, id: 'cmt_1', ancestorIds: [] }),
    keys.threadEntry({ postId: post, id: 'cmt_3', ancestorIds: ['cmt_1', 'cmt_2'] }),
  ],
  comment: [keys.comment('cmt_1')],
  task: [keys.task(2, 'tsk_1')],
  deadTask: [keys.deadTask('tsk_1')],
  idempotencyClaim: [keys.idempotencyClaim(user, 'createPost', 'retry-1')],
  activity: [keys.activity(user, keys.like(post, user))],
  notificationGroup: [keys.notificationGroup(user, `LIKE#${post}`), keys.notificationGroup(user, 'FOLLOW#2026-11-23')],
  notificationMember: [
    keys.notificationMember(user, 'LIKE', post, other),
    keys.notificationMember(user, 'FOLLOW', null, other),
  ],
  notificationActorEntry: [keys.notificationActorEntry(user, `LIKE#${post}`, 'g1', 1_764_000_000_000, other)],
  notificationListEntry: [
    keys.notificationListEntry(user, keys.notificationPosition(1_764_000_000_000, `LIKE#${post}`)),
  ],
  notificationPosition: [
    keys.notificationListEntry(user, keys.notificationPosition(1_764_000_000_000, 'FOLLOW#2026-11-23')),
  ],
  notificationState: [keys.notificationState(user)],
  notifiedBy: [keys.notifiedBy(other, user, 'LIKE', post), keys.notifiedBy(other, user, 'FOLLOW', null)],
  notifiedByOfMember: [keys.notifiedByOfMember(user, keys.notificationMember(user, 'LIKE', post, other).sk)],
};

/** A row's key as a pattern: `<name>` stands for any value, the rest is literal. */
function pattern(template: string): RegExp {
  const parts = template.split(/<[^>]+>/).map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.+')}$`);
}

const describes = (row: KeyDesignRow, key: Key) => pattern(row.pk).test(key.pk) && pattern(row.sk).test(key.sk);

describe('the key design (KEY_DESIGN, the source of docs/reference/data-model.md)', () => {
  it('has a row for every key the builders make', () => {
    const undocumented = Object.entries(made).flatMap(([builder, built]) =>
      built.filter((key) => !KEY_DESIGN.some((row) => describes(row, key))).map((key) => ({ builder, ...key })),
    );
    expect(undocumented).toEqual([]);
  });

  it('has no row that no builder makes', () => {
    const all = Object.values(made).flat();
    expect(KEY_DESIGN.filter((row) => !all.some((key) => describes(row, key)))).toEqual([]);
  });

  it('lists each kind of item once', () => {
    const seen = KEY_DESIGN.map((row) => `${row.pk} ${row.sk}`);
    expect(new Set(seen).size).toBe(seen.length);
  });
});
