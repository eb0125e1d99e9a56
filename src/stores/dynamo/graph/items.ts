import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FollowEdge, GraphUser, Relation, RelationKind } from '../../graph/graph-store.js';
import type { ItemReader } from '../batch-reader.js';
import { COUNTS_UPDATES, type TransactItem } from '../counter-items.js';
import { type Key, keys } from '../keys.js';

export type Item = Record<string, unknown>;

/** What every part of the embedded graph backend works on. */
export interface GraphTable {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Coalesces the graph's lookups of one tick (a page's follow flags, a hop's nodes) into one call. */
  reader: ItemReader;
  followingSetMax: number;
  relationSetMax: number;
}

/**
 * Most ids a graph node's following set holds (about 31 KB of ids): past it, follows are
 * counted but not added to the set, and the user's hops read the following list instead.
 */
export const FOLLOWING_SET_MAX = 1000;
/**
 * Most ids each of a graph node's relation sets holds: past it the node is marked as not
 * holding every relation, and lookups about its user read the edges instead.
 */
export const RELATION_SET_MAX = 1000;

/**
 * The sets a graph node keeps of its user's blocks and mutes, in the transactions that write the
 * edges: the ids the user blocks or mutes (`made`) and, for blocks, the ids that block the user
 * (`received`: the rules hide blocks either way, while a mute matters only to whoever made it).
 */
export const RELATION_SETS: Record<RelationKind, { made: string; received: string | null }> = {
  blocks: { made: 'blocksIds', received: 'blockedByIds' },
  mutes: { made: 'mutesIds', received: null },
};
/** Every relation set attribute a node may hold. */
export const RELATION_SET_ATTRIBUTES = Object.values(RELATION_SETS).flatMap((sets) =>
  sets.received === null ? [sets.made] : [sets.made, sets.received],
);
/** Moved on by every change of a node's relation sets. */
export const RELATIONS_VERSION = 'relationsVersion';
/** Present on a node whose relation sets hold every relation of its user: written with a new node, removed for good when a set has no room. */
export const RELATION_SETS_COMPLETE = 'relationSetsComplete';
/** What a node read answers lookups from: the following set and its count, and the relation sets. */
export const NODE_SET_ATTRIBUTES = [
  'followingCount',
  'followingIds',
  RELATION_SETS_COMPLETE,
  ...RELATION_SET_ATTRIBUTES,
];

/**
 * The items of one follow: the edge (first), then the entries in the follower's following list
 * and in the followee's followers list. Written by follow, importFollows and importGraph alike.
 */
export function followItems(edge: FollowEdge): [Item, Item, Item] {
  const atMs = Date.parse(edge.at);
  const [following, followers] = listEntryKeys(edge.from, edge.to, atMs);
  return [
    { ...keys.followEdge(edge.from, edge.to), at: edge.at, atMs },
    { ...following, userId: edge.to, at: edge.at },
    { ...followers, userId: edge.from, at: edge.at },
  ];
}

/** Where a follow made at `atMs` sits in the follower's following list and in the followee's followers list. */
export function listEntryKeys(followerId: string, followeeId: string, atMs: number): [Key, Key] {
  return [
    { pk: keys.followingList(followerId), sk: keys.followListPosition(atMs, followeeId) },
    { pk: keys.followersList(followeeId), sk: keys.followListPosition(atMs, followerId) },
  ];
}

/** A user's graph node as importGraph writes it: how many it follows, and its following set when that fits (see DynamoGraphStore). */
export function graphNodeItem(
  user: GraphUser,
  followingIds: readonly string[],
  followingSetMax = FOLLOWING_SET_MAX,
): Item {
  // Sets cannot be empty; a node without one has a complete empty set when it follows nobody.
  const set =
    followingIds.length > 0 && followingIds.length <= followingSetMax ? { followingIds: new Set(followingIds) } : {};
  // A new node has no relations yet: its (empty) relation sets are complete.
  return {
    ...keys.graphNode(user.id),
    id: user.id,
    handle: user.handle,
    interests: user.interests,
    followingCount: followingIds.length,
    ...set,
    [RELATION_SETS_COMPLETE]: true,
  };
}

/**
 * The items of one block or mute: the edge (first), then its entries in the relation lists of
 * the user who made it (OUT) and of the user it is about (IN).
 */
export function relationItems(relation: Relation, at: string): [Item, Item, Item] {
  const atMs = Date.parse(at);
  const [made, received] = relationEntryKeys(relation, atMs);
  return [
    { ...keys.relationEdge(relation.kind, relation.from, relation.to), at, atMs },
    { ...made, userId: relation.to, at },
    { ...received, userId: relation.from, at },
  ];
}

export function relationEntryKeys({ kind, from, to }: Relation, atMs: number): [Key, Key] {
  return [
    { pk: keys.relationList(kind, from), sk: keys.relationListPosition('OUT', keys.followListPosition(atMs, to)) },
    { pk: keys.relationList(kind, to), sk: keys.relationListPosition('IN', keys.followListPosition(atMs, from)) },
  ];
}

/** One id added to or deleted from one node's relation set. */
export interface RelationSetChange {
  userId: string;
  attribute: string;
  id: string;
  action: 'ADD' | 'DELETE';
}

/** The relation set changes of a relation made (ADD) or ended (DELETE): the maker's `made` set, and the `received` set of the user it is about. */
export function relationSetChanges({ kind, from, to }: Relation, action: 'ADD' | 'DELETE'): RelationSetChange[] {
  const sets = RELATION_SETS[kind];
  return [
    { userId: from, attribute: sets.made, id: to, action },
    ...(sets.received === null ? [] : [{ userId: to, attribute: sets.received, id: from, action }]),
  ];
}

/**
 * The update of one node's relation set: ADD within the set's room (the condition fails when
 * full), or with `full` the node marked as not holding every relation; DELETE always.
 */
export function relationSetChange(table: GraphTable, change: RelationSetChange, full: boolean): TransactItem {
  // Every change moves the node's relations version on, which the relation-sets migration is conditioned on.
  const names = {
    '#version': RELATIONS_VERSION,
    ...(full ? { '#complete': RELATION_SETS_COMPLETE } : { '#set': change.attribute }),
  };
  const values = {
    ':one': 1,
    ...(full ? {} : { ':ids': new Set([change.id]) }),
    ...(!full && change.action === 'ADD' ? { ':room': table.relationSetMax } : {}),
  };
  return {
    Update: {
      TableName: table.tableName,
      Key: keys.graphNode(change.userId),
      UpdateExpression: full
        ? 'REMOVE #complete ADD #version :one'
        : change.action === 'ADD'
          ? 'ADD #set :ids, #version :one'
          : 'DELETE #set :ids ADD #version :one',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ...(!full && change.action === 'ADD'
        ? { ConditionExpression: 'attribute_not_exists(#set) OR size(#set) < :room' }
        : {}),
    },
  };
}

/**
 * Adds to a node's followingCount (which says whether its following set is complete) and, with `followed`,
 * those ids to the set, on the condition that the set stays within followingSetMax (the condition fails otherwise).
 */
export function followingChange(
  table: GraphTable,
  userId: string,
  delta: number,
  followed: readonly string[] = [],
): TransactItem {
  if (followed.length === 0 || followed.length > table.followingSetMax) {
    return {
      Update: {
        TableName: table.tableName,
        Key: keys.graphNode(userId),
        UpdateExpression: 'ADD followingCount :following',
        ExpressionAttributeValues: { ':following': delta },
      },
    };
  }
  return {
    Update: {
      TableName: table.tableName,
      Key: keys.graphNode(userId),
      UpdateExpression: 'ADD followingCount :following, followingIds :ids',
      ConditionExpression: 'attribute_not_exists(followingIds) OR size(followingIds) <= :room',
      ExpressionAttributeValues: {
        ':following': delta,
        ':ids': new Set(followed),
        ':room': table.followingSetMax - followed.length,
      },
    },
  };
}

export type FollowCounter = 'followerCount' | 'followingCount';

/**
 * Adds to one of the follow counts a user's profile item holds, so that a page reads an author with its
 * counts in one item. No condition: the account's deletion may still be unfollowing (see removeNode).
 */
export function profileCountChange(
  tableName: string,
  userId: string,
  counter: FollowCounter,
  delta: number,
): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.user(userId),
      UpdateExpression: COUNTS_UPDATES.add,
      ExpressionAttributeNames: { '#field': counter },
      ExpressionAttributeValues: { ':delta': delta },
    },
  };
}

/** Adds both follow counts of one user's profile (an import's sums). */
export function profileCountsChange(
  tableName: string,
  userId: string,
  deltas: Record<FollowCounter, number>,
): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.user(userId),
      UpdateExpression: COUNTS_UPDATES.follows,
      ExpressionAttributeValues: { ':followers': deltas.followerCount, ':following': deltas.followingCount },
    },
  };
}

/** A node's following set, when it holds every account the user follows: its size equals the node's followingCount. */
export function completeFollowingIds(node: Item | undefined): ReadonlySet<string> | null {
  const ids = (node?.followingIds as Set<string> | undefined) ?? new Set<string>();
  return ids.size === Number(node?.followingCount ?? 0) ? ids : null;
}

export function completeFollowingSet(node: Item | undefined): string[] | null {
  const ids = completeFollowingIds(node);
  return ids && [...ids];
}

/** Whether the node's relation set `attribute` holds `id`; null when the node's relation sets are not complete (or there is no node). */
export function inRelationSet(node: Item | undefined, attribute: string, id: string): boolean | null {
  if (node?.[RELATION_SETS_COMPLETE] !== true) return null;
  return ((node[attribute] as Set<string> | undefined) ?? new Set<string>()).has(id);
}
