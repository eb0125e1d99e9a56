import { Redis } from 'ioredis';
import { withTimeout } from '../../lib/deadline.js';
import type { Logger } from '../../logger.js';
import { type DependencyName, DependencyState } from '../../observability/dependencies.js';
import { redisCircuitState } from '../../observability/metrics.js';

/** Settings REDIS_CONNECT_TIMEOUT_MS, REDIS_COMMAND_TIMEOUT_MS, REDIS_RETRY_INTERVAL_MS. */
export interface RedisTimeouts {
  connectMs: number;
  commandMs: number;
  /** How long the circuit stays open before one probe asks whether Redis answers again. */
  retryIntervalMs: number;
}

export const REDIS_TIMEOUT_DEFAULTS: RedisTimeouts = { connectMs: 2_000, commandMs: 1_000, retryIntervalMs: 2_000 };

/** closed: commands go to Redis; open: every command gets its fallback at once; half-open: one probe is out. */
export type CircuitState = 'closed' | 'open' | 'half-open';

const CIRCUIT_GAUGE: Record<CircuitState, number> = { closed: 0, 'half-open': 1, open: 2 };

/**
 * One Redis connection for users that can do without it: every command has a deadline and a circuit breaker,
 * so an outage costs one timeout per retry interval and answers the fallback (see docs/design/resilience.md).
 */
export class GuardedRedis {
  readonly connection: Redis;
  private circuit: CircuitState = 'closed';
  private probeTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly state: DependencyState;
  private readonly recoveredListeners: (() => void)[] = [];

  constructor(
    url: string,
    readonly name: Extract<DependencyName, 'redis' | 'redis_subscriber'>,
    private readonly timeouts: RedisTimeouts,
    logger: Logger | null,
  ) {
    this.state = new DependencyState(name, logger);
    redisCircuitState.set({ dependency: name }, CIRCUIT_GAUGE.closed);
    this.connection = new Redis(url, {
      lazyConnect: true,
      connectTimeout: timeouts.connectMs,
      commandTimeout: timeouts.commandMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Reconnects for as long as the process runs, at most one attempt per retry interval.
      retryStrategy: (attempt) => Math.min(timeouts.retryIntervalMs, 50 * 2 ** Math.min(attempt, 10)),
    });
    // A listener, so that ioredis never prints "Unhandled error event" on its own; the circuit logs the change.
    this.connection.on('error', (error: Error) => this.trip(error));
    this.connection.on('close', () => this.trip(new Error('connection closed')));
    this.connection.on('ready', () => {
      if (this.circuit === 'open') this.probe();
    });
  }

  /** Connects once, so that a wrong REDIS_URL fails the start instead of going unnoticed. */
  async connect(): Promise<void> {
    try {
      await this.connection.connect();
    } catch (error) {
      this.connection.disconnect();
      throw error;
    }
  }

  circuitState(): CircuitState {
    return this.circuit;
  }

  /** The command's answer, or the fallback's when Redis did not answer within REDIS_COMMAND_TIMEOUT_MS, failed, or its circuit is open. */
  async run<T>(command: (redis: Redis) => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    if (this.circuit !== 'closed' || this.closed) {
      this.state.unavailable();
      return fallback();
    }
    let result: T;
    try {
      result = await withTimeout(
        command(this.connection),
        this.timeouts.commandMs,
        () => new Error(`Redis did not answer within ${this.timeouts.commandMs} ms`),
      );
    } catch (error) {
      this.trip(error);
      this.state.unavailable(error);
      return fallback();
    }
    this.state.answered();
    return result;
  }

  /** Whether Redis answers a PING within `timeoutMs` (at once `false` while the circuit is open), for health checks. */
  async answers(timeoutMs: number): Promise<boolean> {
    if (this.circuit !== 'closed') return false;
    try {
      await withTimeout(
        this.connection.ping(),
        Math.min(timeoutMs, this.timeouts.commandMs),
        () => new Error('Redis did not answer a PING'),
      );
      return true;
    } catch (error) {
      this.trip(error);
      return false;
    }
  }

  /** Runs `listener` each time the circuit closes again after an outage. */
  onRecovered(listener: () => void): void {
    this.recoveredListeners.push(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    try {
      await withTimeout(this.connection.quit(), this.timeouts.commandMs, () => new Error('Redis did not answer QUIT'));
    } catch {
      this.connection.disconnect();
    }
  }

  private setCircuit(circuit: CircuitState): void {
    this.circuit = circuit;
    redisCircuitState.set({ dependency: this.name }, CIRCUIT_GAUGE[circuit]);
  }

  /** Opens the circuit (a failure while it is half-open is the probe's to handle) and schedules the probe. */
  private trip(error: unknown): void {
    if (this.closed || this.circuit !== 'closed') return;
    this.setCircuit('open');
    this.state.down(error);
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    if (this.closed || this.probeTimer) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      this.probe();
    }, this.timeouts.retryIntervalMs);
    this.probeTimer.unref();
  }

  private probe(): void {
    if (this.closed || this.circuit !== 'open') return;
    this.setCircuit('half-open');
    withTimeout(
      this.connection.ping(),
      this.timeouts.commandMs,
      () => new Error('Redis did not answer the probe'),
    ).then(
      () => {
        if (this.closed) return;
        this.setCircuit('closed');
        this.state.answered();
        for (const listener of this.recoveredListeners) listener();
      },
      () => {
        if (this.closed) return;
        this.setCircuit('open');
        this.scheduleProbe();
      },
    );
  }
}
