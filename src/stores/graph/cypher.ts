/**
 * Every Cypher statement the Neo4j backend sends, in one catalog a test lints with Neo4j's own parser.
 * Each declares its parameters; the backend refuses others. Model and order: see docs/design/graph.md.
 */
export interface CypherStatement {
  readonly text: string;
  readonly params: readonly string[];
}

const cypher = (text: string, ...params: string[]): CypherStatement => ({ text, params });

const KEYSET = '($afterAt IS NULL OR r.at < $afterAt OR (r.at = $afterAt AND f.id < $afterId))';
const PAGE_RETURN = 'RETURN f.id AS id, r.at AS at ORDER BY at DESC, id DESC LIMIT $limit';
const PAGE_PARAMS = ['afterAt', 'afterId', 'limit'];
/** Paging backwards: the follows just newer than the cursor, oldest first (the store returns them newest first). */
const NEWER =
  '(r.at > $beforeAt OR (r.at = $beforeAt AND f.id > $beforeId)) RETURN f.id AS id, r.at AS at ORDER BY at ASC, id ASC LIMIT $limit';
const NEWER_PARAMS = ['beforeAt', 'beforeId', 'limit'];
/** The keyset page of an ordered list of {id, at} maps. */
const COUNTED_PAGE = (list: string) =>
  `[e IN ${list} WHERE $afterAt IS NULL OR e.at < $afterAt OR (e.at = $afterAt AND e.id < $afterId)][0..$limit]`;

/** As `follow`: MERGE on the two bound nodes, with the flag telling whether this transaction created it. */
const RELATE = (type: string) =>
  `MERGE (a:User {id: $fromId})
   MERGE (b:User {id: $toId})
   MERGE (a)-[r:${type}]->(b)
     ON CREATE SET r.at = $at, r.justCreated = true
   WITH r, coalesce(r.justCreated, false) AS created
   REMOVE r.justCreated
   RETURN created`;
const UNRELATE = (type: string) =>
  `MATCH (:User {id: $fromId})-[r:${type}]->(:User {id: $toId}) DELETE r RETURN count(*) AS removed`;
const RELATED = (type: string) => `MATCH (:User {id: $userId})-[r:${type}]->(f:User) WHERE ${KEYSET} ${PAGE_RETURN}`;
const RELATED_NEWER = (type: string) => `MATCH (:User {id: $userId})-[r:${type}]->(f:User) WHERE ${NEWER}`;
const RELATED_COUNT = (type: string) =>
  `OPTIONAL MATCH (u:User {id: $userId}) RETURN COUNT { (u)-[:${type}]->(:User) } AS total`;
const EITHER_WAY = (type: string) =>
  `MATCH (:User {id: $userId})-[:${type}]-(o:User) RETURN collect(DISTINCT o.id) AS ids`;
/** Users left out of a list or traversal (see Excluded in graph-store.ts). */
const NOT_EXCLUDED = (node: string) => `NOT ${node}.id IN $excluding`;

export const CYPHER = {
  userIdUnique: cypher('CREATE CONSTRAINT user_id_unique IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE'),
  userHandleUnique: cypher(
    'CREATE CONSTRAINT user_handle_unique IF NOT EXISTS FOR (u:User) REQUIRE u.handle IS UNIQUE',
  ),
  ping: cypher('RETURN 1 AS ok'),

  upsertUsers: cypher(
    'UNWIND $users AS user MERGE (u:User {id: user.id}) SET u.handle = user.handle, u.interests = user.interests',
    'users',
  ),
  // MERGE on two bound nodes locks them, so concurrent follows of one pair create one edge;
  // the transient flag tells this transaction whether it was the one that created it.
  follow: cypher(
    `MERGE (a:User {id: $followerId})
     MERGE (b:User {id: $followeeId})
     MERGE (a)-[r:FOLLOWS]->(b)
       ON CREATE SET r.at = $at, r.justCreated = true
     WITH r, coalesce(r.justCreated, false) AS created
     REMOVE r.justCreated
     RETURN created`,
    'followerId',
    'followeeId',
    'at',
  ),
  // The bulk form of `follow`, one UNWIND per call: existing edges are matched, not duplicated.
  importFollows: cypher(
    `UNWIND $edges AS edge
     MERGE (a:User {id: edge.from})
     MERGE (b:User {id: edge.to})
     MERGE (a)-[r:FOLLOWS]->(b)
       ON CREATE SET r.at = edge.at, r.justCreated = true
     WITH r, coalesce(r.justCreated, false) AS created
     REMOVE r.justCreated
     RETURN count(CASE WHEN created THEN 1 END) AS added`,
    'edges',
  ),
  unfollow: cypher(
    `MATCH (:User {id: $followerId})-[r:FOLLOWS]->(:User {id: $followeeId})
     DELETE r
     RETURN count(*) AS removed`,
    'followerId',
    'followeeId',
  ),
  removeUser: cypher('MATCH (u:User {id: $userId}) DETACH DELETE u', 'userId'),
  removeNode: cypher('MATCH (u:User {id: $userId}) WHERE NOT EXISTS { MATCH (u)--() } DELETE u', 'userId'),
  follows: cypher(
    `UNWIND range(0, size($pairs) - 1) AS i
     RETURN i, EXISTS { MATCH (:User {id: $pairs[i].from})-[:FOLLOWS]->(:User {id: $pairs[i].to}) } AS follows`,
    'pairs',
  ),
  counts: cypher(
    `UNWIND $ids AS id
     OPTIONAL MATCH (u:User {id: id})
     RETURN id, COUNT { (u)<-[:FOLLOWS]-(:User) } AS followers, COUNT { (u)-[:FOLLOWS]->(:User) } AS following`,
    'ids',
  ),
  followers: cypher(
    `MATCH (:User {id: $userId})<-[r:FOLLOWS]-(f:User) WHERE ${KEYSET} ${PAGE_RETURN}`,
    'userId',
    ...PAGE_PARAMS,
  ),
  following: cypher(
    `MATCH (:User {id: $userId})-[r:FOLLOWS]->(f:User) WHERE ${KEYSET} ${PAGE_RETURN}`,
    'userId',
    ...PAGE_PARAMS,
  ),
  followersNewer: cypher(`MATCH (:User {id: $userId})<-[r:FOLLOWS]-(f:User) WHERE ${NEWER}`, 'userId', ...NEWER_PARAMS),
  followingNewer: cypher(`MATCH (:User {id: $userId})-[r:FOLLOWS]->(f:User) WHERE ${NEWER}`, 'userId', ...NEWER_PARAMS),
  // Known followers and mutuals come with their number, so a page and its totalCount are one
  // statement; the keyset filter applies to the collected, ordered list.
  knownFollowers: cypher(
    `MATCH (:User {id: $viewerId})-[:FOLLOWS]->(f:User)-[r:FOLLOWS]->(:User {id: $userId})
     WHERE ${NOT_EXCLUDED('f')}
     WITH f.id AS id, r.at AS at ORDER BY at DESC, id DESC
     WITH collect({id: id, at: at}) AS known
     RETURN size(known) AS total, ${COUNTED_PAGE('known')} AS page`,
    'viewerId',
    'userId',
    'excluding',
    ...PAGE_PARAMS,
  ),
  mutuals: cypher(
    `MATCH (u:User {id: $userId})-[r:FOLLOWS]->(f:User) WHERE EXISTS { (f)-[:FOLLOWS]->(u) } AND ${NOT_EXCLUDED('f')}
     WITH f.id AS id, r.at AS at ORDER BY at DESC, id DESC
     WITH collect({id: id, at: at}) AS mutual
     RETURN size(mutual) AS total, ${COUNTED_PAGE('mutual')} AS page`,
    'userId',
    'excluding',
    ...PAGE_PARAMS,
  ),
  followingIds: cypher(
    `UNWIND $ids AS id
     OPTIONAL MATCH (:User {id: id})-[:FOLLOWS]->(n:User)
     RETURN id, collect(n.id) AS ids`,
    'ids',
  ),
  followerIds: cypher(
    `UNWIND $ids AS id
     OPTIONAL MATCH (:User {id: id})<-[:FOLLOWS]-(n:User)
     RETURN id, collect(n.id) AS ids`,
    'ids',
  ),
  interests: cypher(
    `UNWIND $ids AS id
     OPTIONAL MATCH (u:User {id: id})
     RETURN id, coalesce(u.interests, []) AS interests`,
    'ids',
  ),
  // Charged to the budget before the suggestion query runs: the follows of the accounts the
  // viewer follows, which is what the second hop of the expansion reads.
  suggestionCost: cypher(
    'MATCH (v:User {id: $viewerId}) RETURN COUNT { (v)-[:FOLLOWS]->(:User)-[:FOLLOWS]->(:User) } AS edges',
    'viewerId',
  ),
  suggestions: cypher(
    `MATCH (v:User {id: $viewerId})-[:FOLLOWS]->(f:User)-[:FOLLOWS]->(s:User)
     WHERE s <> v AND COUNT { (v)-[:FOLLOWS]->(s) } = 0 AND ${NOT_EXCLUDED('s')} AND ${NOT_EXCLUDED('f')}
     WITH s, f ORDER BY f.id
     WITH s, count(f) AS mutualCount, collect(f.id) AS viaIds
     RETURN s.id AS userId, mutualCount, viaIds[0..3] AS via
     ORDER BY mutualCount DESC, userId ASC
     LIMIT $limit`,
    'viewerId',
    'excluding',
    'limit',
  ),
  block: cypher(RELATE('BLOCKS'), 'fromId', 'toId', 'at'),
  mute: cypher(RELATE('MUTES'), 'fromId', 'toId', 'at'),
  unblock: cypher(UNRELATE('BLOCKS'), 'fromId', 'toId'),
  unmute: cypher(UNRELATE('MUTES'), 'fromId', 'toId'),
  relations: cypher(
    `UNWIND range(0, size($relations) - 1) AS i
     WITH i, $relations[i] AS q
     RETURN i, CASE q.kind
       WHEN 'blocks' THEN EXISTS { MATCH (:User {id: q.from})-[:BLOCKS]->(:User {id: q.to}) }
       ELSE EXISTS { MATCH (:User {id: q.from})-[:MUTES]->(:User {id: q.to}) }
     END AS related`,
    'relations',
  ),
  blocked: cypher(RELATED('BLOCKS'), 'userId', ...PAGE_PARAMS),
  muted: cypher(RELATED('MUTES'), 'userId', ...PAGE_PARAMS),
  blockedNewer: cypher(RELATED_NEWER('BLOCKS'), 'userId', ...NEWER_PARAMS),
  mutedNewer: cypher(RELATED_NEWER('MUTES'), 'userId', ...NEWER_PARAMS),
  blockedCount: cypher(RELATED_COUNT('BLOCKS'), 'userId'),
  mutedCount: cypher(RELATED_COUNT('MUTES'), 'userId'),
  blocksEitherWay: cypher(EITHER_WAY('BLOCKS'), 'userId'),
  mutesEitherWay: cypher(EITHER_WAY('MUTES'), 'userId'),
} as const satisfies Record<string, CypherStatement>;

export type CypherName = keyof typeof CYPHER;
