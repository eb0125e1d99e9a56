import {
  type FollowCounts,
  type FollowPair,
  type ReadBudget,
  type Relation,
  chargeLookup,
} from '../../graph/graph-store.js';
import type { ItemReader } from '../batch-reader.js';
import { IncompleteSets, type NodeSet } from '../incomplete-sets.js';
import { type Key, keys } from '../keys.js';
import {
  type GraphTable,
  type Item,
  NODE_SET_ATTRIBUTES,
  RELATION_SETS,
  completeFollowingIds,
  inRelationSet,
} from './items.js';

/** The reads of nodes' sets: kept out of the call of other node reads (strongly consistent counts), whose nodes would otherwise carry the sets too. */
const NODE_SETS_GROUP = 'node sets';
/**
 * Fewer lookups than this in a call read their edges, sharing the tick's edge reads, instead of costing one
 * request more for the node.
 */
const ANCHOR_MIN_LOOKUPS = 3;

/** A user whose graph node answers a lookup from one of its sets, and how (null: that set is not complete). */
interface Anchor {
  userId: string;
  set: NodeSet;
  answer: (node: Item | undefined) => boolean | null;
}

/** The nodes that can answer a follow lookup: the follower's, from its following set. */
function followAnchors(pair: FollowPair): Anchor[] {
  return [{ userId: pair.from, set: 'following', answer: (node) => completeFollowingIds(node)?.has(pair.to) ?? null }];
}

/** The nodes that can answer a relation lookup: the maker's, and for a block the node of the user it is about. */
function relationAnchors({ kind, from, to }: Relation): Anchor[] {
  const sets = RELATION_SETS[kind];
  const made: Anchor = { userId: from, set: 'relations', answer: (node) => inRelationSet(node, sets.made, to) };
  const received = sets.received;
  return received === null
    ? [made]
    : [made, { userId: to, set: 'relations', answer: (node) => inRelationSet(node, received, from) }];
}

/** Whether edges exist, answered from the nodes' sets where they can, and the follow counts. */
export class GraphLookups {
  /** Nodes that could not answer from a set when last read: their lookups read the edges beside them. */
  private readonly incompleteSets = new IncompleteSets();

  constructor(
    private readonly table: GraphTable,
    /** The reader of the table's other stores (see DynamoGraphStoreOptions.tableReader). */
    private readonly tableReader: ItemReader,
  ) {}

  async follows(pairs: readonly FollowPair[], budget: ReadBudget): Promise<boolean[]> {
    chargeLookup(budget, pairs.length);
    // Strongly consistent (the nodes too), so that a follow is visible to the same request's payload.
    return this.anchoredLookups(
      pairs.map((p) => keys.followEdge(p.from, p.to)),
      pairs.map(followAnchors),
    );
  }

  async followsAmong(followerId: string, followeeIds: readonly string[], budget: ReadBudget): Promise<boolean[]> {
    if (followeeIds.length === 0) return [];
    const edgeKeys = followeeIds.map((to) => keys.followEdge(followerId, to));
    // A node whose set could not answer last time has the edges read beside it, in the same call: no wave after it.
    const beside = this.incompleteSets.has(followerId, 'following');
    chargeLookup(budget, beside ? 1 + followeeIds.length : 1);
    // Strongly consistent: the follow transaction adds to the set, so a follow shows on the next read.
    const [[node], besideAnswers] = await Promise.all([
      this.table.reader.get([keys.graphNode(followerId)], {
        attributes: ['followingCount', 'followingIds'],
        consistent: true,
      }),
      beside ? this.edgesExist(edgeKeys) : null,
    ]);
    const set = completeFollowingIds(node);
    this.incompleteSets.record(followerId, 'following', set !== null);
    if (set) return followeeIds.map((id) => set.has(id));
    if (besideAnswers) return besideAnswers;
    chargeLookup(budget, followeeIds.length);
    return this.edgesExist(edgeKeys);
  }

  async relations(relations: readonly Relation[], budget: ReadBudget): Promise<boolean[]> {
    chargeLookup(budget, relations.length);
    return this.anchoredLookups(
      relations.map((r) => keys.relationEdge(r.kind, r.from, r.to)),
      relations.map(relationAnchors),
    );
  }

  async counts(
    userIds: readonly string[],
    budget: ReadBudget,
    options: { consistent?: boolean } = {},
  ): Promise<FollowCounts[]> {
    chargeLookup(budget, userIds.length);
    const consistent = options.consistent !== false;
    return this.readCounts(consistent ? this.table.reader : this.tableReader, userIds, consistent);
  }

  async degrees(userIds: readonly string[]): Promise<FollowCounts[]> {
    return this.readCounts(this.table.reader, userIds, true);
  }

  /** From the profiles, which pages read anyway: an author's follow counts cost no item of their own. */
  private async readCounts(
    reader: ItemReader,
    userIds: readonly string[],
    consistent: boolean,
  ): Promise<FollowCounts[]> {
    const items = await reader.get(userIds.map(keys.user), {
      attributes: ['followerCount', 'followingCount'],
      consistent,
      counters: true,
    });
    return items.map((item) => ({
      followers: Number(item?.followerCount ?? 0),
      following: Number(item?.followingCount ?? 0),
    }));
  }

  /** Whether each edge (a follow, a block, a mute) exists: strongly consistent, so that the request that wrote one sees it. */
  private async edgesExist(edgeKeys: readonly Key[], group?: string): Promise<boolean[]> {
    const items = await this.table.reader.get(edgeKeys, { attributes: [], consistent: true, group });
    return items.map((item) => item !== undefined);
  }

  /**
   * Whether each edge exists, reading an anchor's node instead of its edges while its sets are complete
   * (see docs/design/blocks-and-mutes.md#relation-sets-embedded-backend).
   */
  private async anchoredLookups(edgeKeys: readonly Key[], anchors: readonly (readonly Anchor[])[]): Promise<boolean[]> {
    const coverage = new Map<string, number>();
    for (const options of anchors)
      for (const anchor of options) coverage.set(anchor.userId, (coverage.get(anchor.userId) ?? 0) + 1);
    // Each lookup goes to the node that answers the most of them (the viewer's), so that as few nodes as possible are read.
    const chosen = anchors.map((options) => {
      const best = options.reduce<Anchor | null>(
        (a, b) => (a === null || coverage.get(b.userId)! > coverage.get(a.userId)! ? b : a),
        null,
      );
      return best && coverage.get(best.userId)! >= ANCHOR_MIN_LOOKUPS ? best : null;
    });
    const nodeIds = [...new Set(chosen.flatMap((anchor) => (anchor ? [anchor.userId] : [])))];
    const edgesOf = async (indexes: number[], group?: string) => {
      const found = await this.edgesExist(
        indexes.map((i) => edgeKeys[i]!),
        group,
      );
      return new Map(indexes.map((index, i) => [index, found[i]!]));
    };
    // Beside a node read the other edges join its call (an edge has none of the node's attributes); alone, the tick's other edges and strong counts.
    // So do the edges of lookups whose node's set could not answer last time: a page about such a viewer keeps its two waves.
    const group = nodeIds.length > 0 ? NODE_SETS_GROUP : undefined;
    const [nodes, direct] = await Promise.all([
      this.table.reader.get(nodeIds.map(keys.graphNode), {
        attributes: NODE_SET_ATTRIBUTES,
        consistent: true,
        group: NODE_SETS_GROUP,
      }),
      edgesOf(
        chosen.flatMap((anchor, i) => (anchor && !this.incompleteSets.has(anchor.userId, anchor.set) ? [] : [i])),
        group,
      ),
    ]);
    const nodeOf = new Map(nodeIds.map((id, i) => [id, nodes[i]]));
    const answers = chosen.map((anchor, i) => {
      if (!anchor) return direct.get(i)!;
      const answer = anchor.answer(nodeOf.get(anchor.userId));
      this.incompleteSets.record(anchor.userId, anchor.set, answer !== null);
      return answer ?? direct.get(i) ?? null;
    });
    const unanswered = await edgesOf(answers.flatMap((answer, i) => (answer === null ? [i] : [])));
    return answers.map((answer, i) => answer ?? unanswered.get(i)!);
  }
}
