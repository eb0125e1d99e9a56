import { DynamoDBClient, type DynamoDBClientConfig, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DYNAMO_TIMEOUT_DEFAULTS } from '../../config.js';
import { serviceUnavailable } from '../../domain/errors.js';
import { currentDeadline, signalWithin } from '../../lib/deadline.js';
import type { DependencyState } from '../../observability/dependencies.js';
import { addCostMiddleware } from './cost-middleware.js';
import { type FairSends, endedWaitingForSlot } from './fair-sends.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './embedded-engine.js';
import { SigningSha256, reuseSigner } from './signing.js';

/** Settings DYNAMODB_CONNECT_TIMEOUT_MS, DYNAMODB_ATTEMPT_TIMEOUT_MS, DYNAMODB_MAX_ATTEMPTS, DYNAMODB_TIMEOUT_MS. */
export interface DynamoTimeouts {
  connectMs: number;
  /** One attempt: from the request sent to its answer read. */
  attemptMs: number;
  maxAttempts: number;
  /** The whole call, retries and their backoff included. */
  totalMs: number;
}

/** The timeouts a configuration (loadConfig) sets. */
export function dynamoTimeoutsOf(config: {
  dynamodbConnectTimeoutMs: number;
  dynamodbAttemptTimeoutMs: number;
  dynamodbMaxAttempts: number;
  dynamodbTimeoutMs: number;
}): DynamoTimeouts {
  return {
    connectMs: config.dynamodbConnectTimeoutMs,
    attemptMs: config.dynamodbAttemptTimeoutMs,
    maxAttempts: config.dynamodbMaxAttempts,
    totalMs: config.dynamodbTimeoutMs,
  };
}

/** What every DynamoDB store is built on: the client, and the service's one table. */
export interface TableOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
}

export interface DynamoTarget {
  /** Set for the embedded engine and for any other endpoint; unset means real AWS. */
  endpoint?: string;
  region?: string;
  tableName: string;
  /** Which figure of `extensions.cost` this client's requests count towards. */
  countAs?: 'dynamodb' | 'graph';
  timeouts?: DynamoTimeouts;
  /** Told whether each call answered, for health, metrics and the log. */
  state?: DependencyState;
  /** Shares the requests in flight among the clients of GraphQL operations (DYNAMODB_REQUESTS_AT_ONCE). */
  fairSends?: FairSends;
}

/** Node's errors for a connection that could not be made or was lost. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Whether a failed call failed for want of an answer (timeout, abort, network, server fault or throttling after the retries), not for what it asked. */
function isUnavailability(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, $fault, $metadata } = error as {
    name?: string;
    code?: string;
    $fault?: string;
    $metadata?: { httpStatusCode?: number };
  };
  if (name === 'AbortError' || name === 'TimeoutError' || (code !== undefined && NETWORK_CODES.has(code))) return true;
  if ($fault === 'server' || ($metadata?.httpStatusCode ?? 0) >= 500) return true;
  return (
    name === 'ThrottlingException' ||
    name === 'ProvisionedThroughputExceededException' ||
    name === 'RequestLimitExceeded'
  );
}

/**
 * A single-item write that meets a transaction on its item fails with TransactionConflictException, having changed
 * nothing, and the SDK does not retry it: marked retryable, it is tried again within the call's attempts and deadline.
 */
function retryTransactionConflicts(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (error instanceof TransactionConflictException) error.$retryable = {};
        throw error;
      }
    },
    // Inside the SDK's retry step (priority high), so that it sees the mark.
    { step: 'finalizeRequest', priority: 'low', name: 'retryTransactionConflicts' },
  );
}

export function createDocumentClient(target: DynamoTarget): DynamoDBDocumentClient {
  const timeouts = target.timeouts ?? DYNAMO_TIMEOUT_DEFAULTS;
  const config: DynamoDBClientConfig = {
    maxAttempts: timeouts.maxAttempts,
    // Without throwOnRequestTimeout the handler only warns (on the console) and waits on; its logger would print there too.
    requestHandler: {
      connectionTimeout: timeouts.connectMs,
      requestTimeout: timeouts.attemptMs,
      throwOnRequestTimeout: true,
      logger: QUIET,
    },
    logger: QUIET,
    sha256: SigningSha256,
  };
  if (target.endpoint) {
    config.endpoint = target.endpoint;
    config.region = target.region || LOCAL_REGION;
    // A local endpoint accepts any credentials; real AWS uses the default provider chain.
    if (!process.env.AWS_ACCESS_KEY_ID) config.credentials = LOCAL_CREDENTIALS;
  } else if (target.region) {
    config.region = target.region;
  }
  const client = new DynamoDBClient(config);
  // The SDK's logger step copies every input and output through its sensitive-field filter to hand it
  // to a logger, even the no-op one we leave in place: a few percent of the service's CPU per page, for nothing.
  client.middlewareStack.remove('loggerMiddleware');
  reuseSigner(client);
  retryTransactionConflicts(client);
  addCostMiddleware(client, target.countAs ?? 'dynamodb');
  target.fairSends?.attach(client);
  const document = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  withDeadlines(document, timeouts.totalMs, target.state);
  return document;
}

/** Calls in a row that found DynamoDB unreachable or silent before the client fails fast, and for how long before one call tries again. */
const FAILURES_TO_OPEN = 5;
const OPEN_MS = 1_000;

/**
 * Fails fast while DynamoDB is down: calls fail at once for OPEN_MS after FAILURES_TO_OPEN timeouts in a row.
 * Throttling and server faults do not count: they are one partition's or one request's.
 */
class FailFast {
  private failures = 0;
  private openUntil = 0;
  private probing = false;

  /** Whether a call may go: as usual, as the one probe of an open circuit, or not at all. */
  admits(): 'call' | 'probe' | null {
    if (this.failures < FAILURES_TO_OPEN) return 'call';
    if (this.probing || Date.now() < this.openUntil) return null;
    this.probing = true;
    return 'probe';
  }

  /** A probe that ended saying nothing of DynamoDB (abandoned, or refused by it): the next call may probe. */
  probeEnded(): void {
    this.probing = false;
  }

  answered(): void {
    this.failures = 0;
    this.probing = false;
  }

  silent(): void {
    this.failures += 1;
    this.probing = false;
    if (this.failures >= FAILURES_TO_OPEN) this.openUntil = Date.now() + OPEN_MS;
  }
}

/**
 * Every call gets a total budget, and the deadline of the operation it serves when there is one:
 * the first to pass aborts it, retries included. A call that failed for want of an answer
 * becomes SERVICE_UNAVAILABLE; other errors (a failed condition, a bad request) pass as they are.
 */
function withDeadlines(document: DynamoDBDocumentClient, totalMs: number, state: DependencyState | undefined): void {
  const send = document.send.bind(document) as (
    command: unknown,
    options?: { abortSignal?: AbortSignal },
  ) => Promise<unknown>;
  const circuit = new FailFast();
  const guarded = async (command: unknown, options?: { abortSignal?: AbortSignal }) => {
    const admitted = circuit.admits();
    if (!admitted) {
      state?.unavailable();
      throw serviceUnavailable(new Error('DynamoDB is not answering: failing fast'));
    }
    const call = signalWithin(totalMs, [currentDeadline(), options?.abortSignal]);
    const abortSignal = call.signal;
    try {
      const output = await send(command, { ...options, abortSignal });
      circuit.answered();
      state?.answered();
      return output;
    } catch (error) {
      // It waited for a slot past its deadline: that says nothing of DynamoDB.
      if (endedWaitingForSlot(abortSignal)) throw serviceUnavailable(error);
      if (!isUnavailability(error)) {
        circuit.answered();
        state?.answered();
        throw error;
      }
      // Abandoned by its caller (the operation's deadline): the store may be fine.
      const abandoned = abortSignal.aborted && !call.timedOut();
      if (!abandoned) {
        if (isSilence(error)) circuit.silent();
        state?.unavailable(error);
      }
      throw serviceUnavailable(error);
    } finally {
      call.release();
      if (admitted === 'probe') circuit.probeEnded();
    }
  };
  document.send = guarded as typeof document.send;
}

/** No answer at all: a timeout, an abort by the budget, or no connection. */
function isSilence(error: unknown): boolean {
  const { name, code } = error as { name?: string; code?: string };
  return name === 'AbortError' || name === 'TimeoutError' || (code !== undefined && NETWORK_CODES.has(code));
}

const QUIET = { debug() {}, info() {}, warn() {}, error() {}, trace() {} };
