import {
  type CountedPage,
  type Excluded,
  type FollowCounts,
  type PageArgs,
  type ReadBudget,
  NOBODY,
  chargeIntersection,
  chargeLookup,
} from '../../graph/graph-store.js';
import { batchGet } from '../batch.js';
import { type Key, keys } from '../keys.js';
import type { GraphTable } from './items.js';
import { type GraphLists, checkedPosition } from './lists.js';

/** One side of an intersection: the list partition read whole, its size by the counts, and the edge checked for each entry. */
interface IntersectedList {
  pk: string;
  size: number;
  edge: (id: string) => Key;
  /** The checked edge's follow time gives the order, rather than the list's own positions. */
  edgeIsOrder: boolean;
}

/** Known followers and mutuals: two follow lists intersected from the shorter one. */
export class GraphIntersections {
  constructor(
    private readonly table: GraphTable,
    private readonly lists: GraphLists,
    private readonly degrees: (userIds: readonly string[]) => Promise<FollowCounts[]>,
  ) {}

  async knownFollowers(
    viewerId: string,
    userId: string,
    page: PageArgs,
    budget: ReadBudget,
    excluding: Excluded | Promise<Excluded> = NOBODY,
  ): Promise<CountedPage> {
    const after = checkedPosition(page.after);
    chargeLookup(budget, 2);
    const [viewer, user] = await this.degrees([viewerId, userId]);
    // Ordered by when each followed the user: the user's followers list holds those positions;
    // from the viewer's side they come from the edges checked.
    return viewer!.following <= user!.followers
      ? this.intersection(
          {
            pk: keys.followingList(viewerId),
            size: viewer!.following,
            edge: (id) => keys.followEdge(id, userId),
            edgeIsOrder: true,
          },
          after,
          page.first,
          budget,
          excluding,
        )
      : this.intersection(
          {
            pk: keys.followersList(userId),
            size: user!.followers,
            edge: (id) => keys.followEdge(viewerId, id),
            edgeIsOrder: false,
          },
          after,
          page.first,
          budget,
          excluding,
        );
  }

  async mutuals(
    userId: string,
    page: PageArgs,
    budget: ReadBudget,
    excluding: Excluded | Promise<Excluded> = NOBODY,
  ): Promise<CountedPage> {
    const after = checkedPosition(page.after);
    chargeLookup(budget, 1);
    const [counts] = await this.degrees([userId]);
    // Ordered by when the user followed each: the user's following list holds those positions;
    // from the followers side they come from the edges checked.
    return counts!.following <= counts!.followers
      ? this.intersection(
          {
            pk: keys.followingList(userId),
            size: counts!.following,
            edge: (id) => keys.followEdge(id, userId),
            edgeIsOrder: false,
          },
          after,
          page.first,
          budget,
          excluding,
        )
      : this.intersection(
          {
            pk: keys.followersList(userId),
            size: counts!.followers,
            edge: (id) => keys.followEdge(userId, id),
            edgeIsOrder: true,
          },
          after,
          page.first,
          budget,
          excluding,
        );
  }

  /** The entries of `list` whose edge exists, newest first, less those `excluding`: a page of them after `after`, and how many there are. */
  private async intersection(
    list: IntersectedList,
    after: string | null,
    first: number,
    budget: ReadBudget,
    excluding: Excluded | Promise<Excluded>,
  ): Promise<CountedPage> {
    if (list.size === 0) return { items: [], hasNextPage: false, totalCount: 0 };
    chargeIntersection(budget, list.size);
    const listed = await this.lists.readList(list.pk, null, null);
    const excluded = await excluding;
    const entries = listed.filter((entry) => !excluded.has(entry.id));
    const edges = await batchGet(
      this.table.client,
      this.table.tableName,
      entries.map((e) => list.edge(e.id)),
      {
        projection: list.edgeIsOrder ? 'pk, sk, atMs' : 'pk, sk',
      },
    );
    const kept = entries
      .flatMap((entry, i) => {
        const edge = edges[i];
        if (!edge) return [];
        return [
          {
            id: entry.id,
            position: list.edgeIsOrder ? keys.followListPosition(edge.atMs as number, entry.id) : entry.position,
          },
        ];
      })
      .sort((a, b) => (a.position < b.position ? 1 : -1));
    const rest = after === null ? kept : kept.filter((entry) => entry.position < after);
    return {
      items: rest.slice(0, first).map((e) => ({ id: e.id, cursor: e.position })),
      hasNextPage: rest.length > first,
      totalCount: kept.length,
    };
  }
}
