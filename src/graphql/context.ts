import type { Tokens } from '../auth/tokens.js';
import type { Credential, ProviderIdentity, UserRecord } from '../domain/models.js';
import type { Cost } from '../observability/cost.js';
import type { ReadBudget } from '../stores/graph/graph-store.js';
import type { TimelineSkeleton } from '../usecases/feeds/post-steps.js';
import type { RateStatus } from '../usecases/rate-limits.js';
import type { UseCases } from '../usecases/use-cases.js';
import type { Loaders, ReadConsistency } from './loaders.js';

/** This request's feed pipeline (see feeds.ts). */
export interface FeedState {
  /** Whether pages hydrate what their selection shows up front; off in the naive baseline (BATCHING=false). */
  hydrate: boolean;
  /** Timeline skeletons started so far, by field, user and page arguments. */
  skeletons: Map<string, Promise<TimelineSkeleton>>;
}

export interface Demand {
  estimated: number;
  maxCost: number;
  /** Null when the operation was refused before its client's bucket was asked. */
  rate: RateStatus | null;
}

export interface GraphQLContext {
  /**
   * The signed-in user's id, or null when anonymous. Its account is checked before a mutation
   * executes and beside a query's execution, whose answer is withheld unless the check passes
   * (see authenticationPlugin).
   */
  viewerId: string | null;
  /** What the request's token says; null when anonymous or when a provider's token has no account yet. */
  credential: Credential | null;
  /** The identity of the identity provider's token the request carries, linked or not; null for other requests. */
  identity: ProviderIdentity | null;
  /** The client's IP address, for the sign-in limits. */
  clientAddress: string;
  loaders: Loaders;
  reads: ReadConsistency;
  useCases: UseCases;
  tokens: Tokens;
  /** This request's graph budget (GRAPH_MAX_READS, GRAPH_MAX_EDGES): every graph read its fields make is charged to it. */
  graphBudget: ReadBudget;
  /** What this operation has cost the backends so far. */
  cost: Cost;
  /** Its estimate and limit once measured, and its client's bucket once charged (see queryLimitsPlugin). */
  demand?: Demand;
  feeds: FeedState;
  /**
   * A subscription's: resets what is per operation (loaders, graph budget, cost, skeletons) before
   * each event is resolved, so that each reads as fresh as a new query.
   */
  startEvent?: () => void;
  /** A query's account check (or a subscription event's), running beside its execution (see authenticationPlugin): the viewer's record. */
  accountCheck?: Promise<UserRecord>;
}
