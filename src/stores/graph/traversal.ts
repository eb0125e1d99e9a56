import { AppError, badInput } from '../../domain/errors.js';
import { idPattern } from '../../domain/ids.js';
import { chunk } from '../../lib/collections.js';
import {
  type CountedPage,
  type Excluded,
  type FollowCounts,
  type NetworkArgs,
  type ReadBudget,
  type SuggestedUser,
  NOBODY,
  chargeLookup,
  lookupReads,
} from './graph-store.js';

/**
 * Multi-hop traversals written once over a batched adjacency interface, so both backends give the same
 * answers and obey the same budget: each hop charges its reads before sending them (see docs/design/graph.md#bounds).
 */
export type Direction = 'out' | 'in';

/**
 * Reads without a charge of their own: the traversals charge each call before making it
 * (`countedFollowing` through its callback, between its read and any other).
 */
export interface Adjacency {
  degrees(ids: readonly string[]): Promise<FollowCounts[]>;
  /** Aligned with `ids`: whom each follows ('out') or who follows each ('in'). */
  neighbours(ids: readonly string[], direction: Direction): Promise<string[][]>;
  /**
   * Whom each follows, read with their counts: calls `chargeEdges` with the counts' sum before any other read
   * (a throw ends the hop). What rides along before the charge is bounded by `countedFollowingMax`.
   */
  countedFollowing?(ids: readonly string[], chargeEdges: (degreeSum: number) => void): Promise<string[][]>;
  /** The most users `countedFollowing` is asked for at once. */
  readonly countedFollowingMax?: number;
  /** Aligned with `ids`: each user's interests ([] when unknown). */
  interests(ids: readonly string[]): Promise<string[][]>;
}

/** The bounds of one request's graph reads (settings GRAPH_MAX_READS and GRAPH_MAX_EDGES). */
export interface GraphLimits {
  maxReads: number;
  maxEdges: number;
}

/**
 * One GraphQL request's graph budget, shared by every field of the request: each graph read
 * is charged before it is sent, and the read that would pass either bound ends its field with
 * QUERY_TOO_EXPENSIVE instead, charging nothing.
 */
export class GraphBudget implements ReadBudget {
  private reads = 0;
  private items = 0;

  constructor(private readonly limits: GraphLimits) {}

  charge(reads: number, items: number): void {
    this.ensure(reads, items);
    this.reads += reads;
    this.items += items;
  }

  ensure(reads: number, items: number): void {
    const { maxReads, maxEdges } = this.limits;
    if (this.reads + reads > maxReads) {
      throw new AppError(
        'QUERY_TOO_EXPENSIVE',
        `This request would make more than ${maxReads} graph reads; ask for fewer hops, fewer users or smaller pages`,
        {
          budget: 'GRAPH_MAX_READS',
          maxReads,
          maxEdges,
        },
      );
    }
    if (this.items + items > maxEdges) {
      throw new AppError(
        'QUERY_TOO_EXPENSIVE',
        `This request would read more than ${maxEdges} graph entries (follow edges and users); ask for fewer hops, fewer users or smaller pages`,
        {
          budget: 'GRAPH_MAX_EDGES',
          maxReads,
          maxEdges,
        },
      );
    }
  }
}

/** For graph reads no client chooses: the fan-out worker's pages, a new post's author count, a home timeline's outbox check, seeding and benchmarks. */
export const UNMETERED: ReadBudget = { charge() {}, ensure() {} };

/**
 * Charges a hop from `users` users before it is read: first their list reads and the lookup of
 * their counts, then the degree sum that `lookUpDegreeSum` reads (the edges the lists hold).
 */
export async function chargeHop(
  budget: ReadBudget,
  users: number,
  lookUpDegreeSum: () => Promise<number>,
): Promise<void> {
  chargeListsAndCounts(budget, users);
  budget.charge(0, await lookUpDegreeSum());
}

/** A hop's first charge, before anything is read: a list read per user, and the lookup of their counts. */
function chargeListsAndCounts(budget: ReadBudget, users: number): void {
  budget.charge(users + lookupReads(users), users);
}

const degreeSum = (counts: FollowCounts[], direction: Direction) =>
  counts.reduce((sum, c) => sum + (direction === 'out' ? c.following : c.followers), 0);

/** Reads one hop from a frontier after charging it (its degree sum as soon as it is known: see countedFollowing). */
export async function expand(
  graph: Adjacency,
  frontier: readonly string[],
  direction: Direction,
  budget: ReadBudget,
): Promise<string[][]> {
  if (frontier.length === 0) return [];
  const counted = direction === 'out' ? countedReader(graph, frontier.length) : null;
  if (!counted) {
    await chargeHop(budget, frontier.length, async () => degreeSum(await graph.degrees(frontier), direction));
    return graph.neighbours(frontier, direction);
  }
  chargeListsAndCounts(budget, frontier.length);
  return counted(frontier, (sum) => budget.charge(0, sum));
}

/** The backend's countedFollowing, when it has one and `users` fit one call of it. */
function countedReader(graph: Adjacency, users: number): Adjacency['countedFollowing'] | null {
  return graph.countedFollowing && users <= (graph.countedFollowingMax ?? 0)
    ? graph.countedFollowing.bind(graph)
    : null;
}

/** Follow lists read per call by a hop that more reads are certain to follow, so that it can stop between calls. */
const HOP_CHUNK = 64;

/**
 * Every user within maxDepth hops of the origin with its distance, never reaching or passing an `excluding`
 * user. A hop that more reads must follow reads HOP_CHUNK users at a time and stops once the budget cannot fit them.
 */
export async function reachable(
  graph: Adjacency,
  origin: string,
  maxDepth: number,
  lookUpAll: boolean,
  budget: ReadBudget,
  arriving: Excluded | Promise<Excluded> = NOBODY,
): Promise<Map<string, number>> {
  const distance = new Map<string, number>([[origin, 0]]);
  let frontier = [origin];
  // Awaited once the first lists are read, so that a caller still reading the excluded users overlaps the first hop.
  let excluding: Excluded | null = null;
  for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
    const last = depth === maxDepth;
    const next: string[] = [];
    /** Adds the users first reached in `lists`; false when the origin itself is excluded, which reaches nobody. */
    const visit = async (reading: Promise<string[][]>) => {
      const lists = await reading;
      if (excluding === null) {
        excluding = await arriving;
        if (excluding.has(origin)) return false;
      }
      for (const id of lists.flat()) {
        if (distance.has(id) || excluding.has(id)) continue;
        distance.set(id, depth);
        next.push(id);
      }
      return true;
    };
    if (last && !lookUpAll) {
      if (!(await visit(expand(graph, frontier, 'out', budget)))) return new Map();
    } else {
      // A frontier of one part can be read with its counts: its whole degree sum is still charged before the check below.
      const counted = frontier.length <= HOP_CHUNK ? countedReader(graph, frontier.length) : null;
      if (counted) chargeListsAndCounts(budget, frontier.length);
      else await chargeHop(budget, frontier.length, async () => degreeSum(await graph.degrees(frontier), 'out'));
      for (const part of chunk(frontier, HOP_CHUNK)) {
        if (!(await visit(counted ? counted(part, (sum) => budget.charge(0, sum)) : graph.neighbours(part, 'out'))))
          return new Map();
        const nextHop = last ? 0 : next.length;
        const reached = lookUpAll ? distance.size - 1 : 0;
        budget.ensure(nextHop + lookupReads(nextHop) + lookupReads(reached), nextHop + reached);
      }
    }
    frontier = next;
  }
  distance.delete(origin);
  return distance;
}

/** Network cursors: "<distance>:<userId>", the position of the last user of a page. */
const NETWORK_CURSOR = new RegExp(`^(\\d):(${idPattern('usr')})$`);

function parseNetworkCursor(after: string): { distance: number; id: string } {
  const match = NETWORK_CURSOR.exec(after);
  if (!match) throw badInput('after', 'is not a cursor this API gave out');
  return { distance: Number(match[1]), id: match[2]! };
}

export async function networkPage(graph: Adjacency, args: NetworkArgs, budget: ReadBudget): Promise<CountedPage> {
  const found = await reachable(graph, args.origin, args.maxDepth, args.interest !== null, budget, args.excluding);
  let ids = [...found.keys()];
  if (args.interest !== null) {
    chargeLookup(budget, ids.length);
    const interests = await graph.interests(ids);
    ids = ids.filter((_, i) => interests[i]!.includes(args.interest!));
  }
  const ranked = ids
    .map((id) => ({ id, distance: found.get(id)! }))
    .sort((a, b) => a.distance - b.distance || compareIds(a.id, b.id));
  const after = args.after === null ? null : parseNetworkCursor(args.after);
  const start =
    after === null
      ? 0
      : ranked.findIndex((u) => u.distance > after.distance || (u.distance === after.distance && u.id > after.id));
  const rest = start < 0 ? [] : ranked.slice(start);
  return {
    items: rest.slice(0, args.first).map((u) => ({ id: u.id, cursor: `${u.distance}:${u.id}` })),
    hasNextPage: rest.length > args.first,
    totalCount: ranked.length,
  };
}

const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Shortest directed path by bidirectional BFS, growing the side whose next hop reads fewer edges. `excluding`
 * is awaited once the first hop is read, so their reads overlap.
 */
export async function shortestPath(
  graph: Adjacency,
  from: string,
  to: string,
  maxDepth: number,
  budget: ReadBudget,
  arriving: Excluded | Promise<Excluded> = NOBODY,
): Promise<string[] | null> {
  if (from === to) return (await arriving).has(from) ? null : [from];
  let excluding: Excluded | null = null;
  const sides = {
    out: {
      parent: new Map<string, string | null>([[from, null]]),
      distance: new Map([[from, 0]]),
      frontier: [from],
      depth: 0,
    },
    in: {
      parent: new Map<string, string | null>([[to, null]]),
      distance: new Map([[to, 0]]),
      frontier: [to],
      depth: 0,
    },
  };
  while (sides.out.depth + sides.in.depth < maxDepth && sides.out.frontier.length > 0 && sides.in.frontier.length > 0) {
    // Whichever side grows, it reads at least the smaller frontier's lists: charged before the counts are looked up.
    const [outUsers, inUsers] = [sides.out.frontier.length, sides.in.frontier.length];
    const fewestLists = Math.min(outUsers, inUsers);
    budget.charge(fewestLists + lookupReads(outUsers) + lookupReads(inUsers), outUsers + inUsers);
    const [outCounts, inCounts] = await Promise.all([
      graph.degrees(sides.out.frontier),
      graph.degrees(sides.in.frontier),
    ]);
    const [outCost, inCost] = [degreeSum(outCounts, 'out'), degreeSum(inCounts, 'in')];
    const direction: Direction = outCost <= inCost ? 'out' : 'in';
    const side = sides[direction];
    const other = sides[direction === 'out' ? 'in' : 'out'];
    budget.charge(side.frontier.length - fewestLists, Math.min(outCost, inCost));
    const lists = await graph.neighbours(side.frontier, direction);
    if (excluding === null) {
      excluding = await arriving;
      if (excluding.has(from) || excluding.has(to)) return null;
    }
    side.depth += 1;
    const next: string[] = [];
    let best: { id: string; total: number } | null = null;
    for (const [i, id] of side.frontier.entries()) {
      for (const neighbour of lists[i]!) {
        if (side.parent.has(neighbour) || excluding.has(neighbour)) continue;
        side.parent.set(neighbour, id);
        side.distance.set(neighbour, side.depth);
        next.push(neighbour);
        const otherDistance = other.distance.get(neighbour);
        if (otherDistance === undefined) continue;
        const total = side.depth + otherDistance;
        if (!best || total < best.total || (total === best.total && neighbour < best.id))
          best = { id: neighbour, total };
      }
    }
    side.frontier = next;
    if (best) return joinPath(sides.out.parent, sides.in.parent, best.id);
  }
  return null;
}

function joinPath(
  forward: Map<string, string | null>,
  backward: Map<string, string | null>,
  meeting: string,
): string[] {
  const path: string[] = [];
  for (let id: string | null | undefined = meeting; id; id = forward.get(id)) path.unshift(id);
  for (let id = backward.get(meeting); id; id = backward.get(id)) path.push(id);
  return path;
}

/**
 * Friends of friends: accounts followed by accounts the viewer follows, neither the viewer
 * nor already followed nor `excluding`, ranked by how many of the viewer's follows lead there
 * (ties by id); `viaIds` are the (up to 3) smallest of those connecting ids.
 */
export async function friendsOfFriends(
  graph: Adjacency,
  viewerId: string,
  first: number,
  budget: ReadBudget,
  arriving: Excluded | Promise<Excluded> = NOBODY,
): Promise<SuggestedUser[]> {
  const [followed = []] = await expand(graph, [viewerId], 'out', budget);
  const followedSet = new Set(followed);
  const [lists, excluding] = await Promise.all([expand(graph, followed, 'out', budget), arriving]);
  const connecting = new Map<string, string[]>();
  followed.forEach((via, i) => {
    if (excluding.has(via)) return;
    for (const candidate of lists[i]!) {
      if (candidate === viewerId || followedSet.has(candidate) || excluding.has(candidate)) continue;
      const vias = connecting.get(candidate) ?? [];
      vias.push(via);
      connecting.set(candidate, vias);
    }
  });
  return [...connecting]
    .map(([userId, vias]) => ({ userId, mutualCount: vias.length, viaIds: vias.sort(compareIds).slice(0, 3) }))
    .sort((a, b) => b.mutualCount - a.mutualCount || compareIds(a.userId, b.userId))
    .slice(0, first);
}
