import { badInput, notFound, unauthenticated } from '../domain/errors.js';
import { requireIdOf } from '../domain/ids.js';
import { normalizeWord, pageSize } from '../domain/validation.js';
import { settleAll } from '../lib/collections.js';
import type { UserRecord } from '../domain/models.js';
import type { CountedPage, Excluded, GraphStore, ReadBudget, SuggestedUser } from '../stores/graph/graph-store.js';
import type { UserStore } from '../stores/user-store.js';
import { type GraphLimits, GraphBudget } from '../stores/graph/traversal.js';
import { pageArgs, withOpaqueCursors } from './paging.js';
import type { BlockedAccounts } from './relationships.js';

/** Hop limits of the multi-hop queries; the request's graph budget (GRAPH_MAX_READS, GRAPH_MAX_EDGES) bounds the work within them. */
export const HOPS = {
  separation: { default: 3, max: 6 },
  network: { default: 2, max: 3 },
} as const;

function depth(value: number | null | undefined, bounds: { default: number; max: number }): number {
  if (value === null || value === undefined) return bounds.default;
  if (!Number.isInteger(value) || value < 1 || value > bounds.max)
    throw badInput('maxDepth', `must be between 1 and ${bounds.max}`);
  return value;
}

export interface Separation {
  degrees: number | null;
  pathIds: string[];
}

/** Candidates ranked past a `suggestedFollows` page and read with it, so that accounts closed for deletion leave it full. */
const SPARE_SUGGESTIONS = 3;
/** Profile reads a `suggestedFollows` page may take: the first, and more while closed candidates leave it short. */
const SUGGESTION_ROUNDS = 3;

/**
 * Friends of friends, degrees of separation and reachable networks. Accounts in a block with the viewer
 * are treated as if they did not exist (see docs/design/blocks-and-mutes.md).
 */
export class GraphQueryUseCases {
  constructor(
    private readonly users: UserStore,
    private readonly graph: GraphStore,
    private readonly limits: GraphLimits,
  ) {}

  /** A fresh budget for the graph reads of one GraphQL request, shared by all its fields. */
  budget(): GraphBudget {
    return new GraphBudget(this.limits);
  }

  /** `profiles`: users' profiles as the page's fields read them, so that they are read once. */
  async suggestedFollows(
    viewerId: string | null,
    first: number | null | undefined,
    budget: ReadBudget,
    blocked: BlockedAccounts,
    profiles: (ids: readonly string[]) => Promise<(UserRecord | null)[]>,
  ): Promise<SuggestedUser[]> {
    if (!viewerId) throw unauthenticated();
    const size = pageSize(first);
    // The viewer's blocks are read beside the first hops: only the candidates need them.
    const excluding = blocked();
    excluding.catch(() => {});
    const ranked = await this.graph.suggestions(
      viewerId,
      SUGGESTION_ROUNDS * (size + SPARE_SUGGESTIONS),
      budget,
      excluding,
    );
    // A closed account is being deleted: following it is refused, so it is not suggested either. The accounts
    // shown as `via` are read in the same batch, as the page's fields would read them.
    const shown: SuggestedUser[] = [];
    for (let round = 0, next = 0; round < SUGGESTION_ROUNDS && shown.length < size && next < ranked.length; round++) {
      const candidates = ranked.slice(next, next + size - shown.length + SPARE_SUGGESTIONS);
      next += candidates.length;
      const ids = candidates.map((suggestion) => suggestion.userId);
      const found = await profiles([...ids, ...candidates.flatMap((suggestion) => suggestion.viaIds)]);
      shown.push(...candidates.filter((_suggestion, i) => found[i] && found[i].closedAt === undefined));
    }
    return shown.slice(0, size);
  }

  async degreesOfSeparation(
    from: string,
    to: string,
    maxDepth: number | null | undefined,
    budget: ReadBudget,
    blocked: BlockedAccounts,
  ): Promise<Separation> {
    const hops = depth(maxDepth, HOPS.separation);
    const ends = [requireIdOf('usr', from, 'from'), requireIdOf('usr', to, 'to')] as const;
    const path = await this.besideFirstHop(ends, blocked, null, (excluding) =>
      this.graph.shortestPath(...ends, hops, budget, excluding),
    );
    return path ? { degrees: path.length - 1, pathIds: path } : { degrees: null, pathIds: [] };
  }

  async network(
    args: {
      userId: string;
      maxDepth?: number | null;
      interest?: string | null;
      first?: number | null;
      after?: string | null;
    },
    budget: ReadBudget,
    blocked: BlockedAccounts,
  ): Promise<CountedPage> {
    const hops = depth(args.maxDepth, HOPS.network);
    const page = pageArgs(args.first, args.after);
    const interest =
      args.interest === null || args.interest === undefined ? null : normalizeWord(args.interest, 'interest');
    const origin = requireIdOf('usr', args.userId, 'userId');
    const found = await this.besideFirstHop(
      [origin],
      blocked,
      { items: [], hasNextPage: false, totalCount: 0 },
      (excluding) => this.graph.network({ origin, maxDepth: hops, interest, excluding, ...page }, budget),
    );
    return withOpaqueCursors(found);
  }

  /**
   * Starts the traversal at once, with the existence check and the viewer's blocks beside its first hop. Errors
   * in this order: NOT_FOUND, the blocks' read, the traversal's; about a blocked user it answers `ifBlocked`.
   */
  private async besideFirstHop<T>(
    users: readonly string[],
    blocked: BlockedAccounts,
    ifBlocked: T,
    traverse: (excluding: Promise<Excluded>) => Promise<T>,
  ): Promise<T> {
    const excluding = blocked();
    excluding.catch(() => {});
    const traversal = traverse(excluding).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const [, outcome, excluded] = await settleAll([this.requireUsers(users), traversal, excluding] as const);
    if (users.some((id) => excluded.has(id))) return ifBlocked;
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  /** NOT_FOUND for the first id that names no user. */
  private async requireUsers(wanted: readonly string[]): Promise<void> {
    const found = await this.users.getMany(wanted);
    const missing = wanted.find((_, i) => !found[i]);
    if (missing !== undefined) throw notFound('User', missing);
  }
}
