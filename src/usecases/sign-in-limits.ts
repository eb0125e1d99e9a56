import { rateLimited } from '../domain/errors.js';
import type { AttemptSubject, FailedAttemptStore } from '../stores/account-store.js';

export interface SignInLimitSettings {
  /** SIGNIN_MAX_FAILURES: failures per subject within the last window after which every attempt is refused. */
  maxFailures: number;
  /** SIGNIN_WINDOW_SECONDS. */
  windowSeconds: number;
  /** PASSWORD_CHECKS_PER_ADDRESS: password checks and sign-ups per client address within the last window, right or wrong. */
  maxChecks: number;
}

/** What one subject has failed: in the current fixed window and in the one before it. */
export interface WindowCounts {
  current: number;
  previous: number;
}

/**
 * The failures of the last `windowSeconds`, estimated from two fixed windows: the current one
 * in full, and the previous one in the proportion that still lies within the last `windowSeconds`
 * (a sliding-window counter). It assumes the previous window's failures were spread evenly.
 */
export function slidingFailures(counts: WindowCounts, elapsedFraction: number): number {
  return counts.current + counts.previous * (1 - elapsedFraction);
}

/** Seconds until a refused subject's sliding estimate falls below `maxFailures`, if it fails no more. */
export function secondsUntilAllowed(
  counts: WindowCounts,
  elapsedSeconds: number,
  settings: Pick<SignInLimitSettings, 'maxFailures' | 'windowSeconds'>,
): number {
  const { maxFailures, windowSeconds } = settings;
  const allowedAt =
    counts.current < maxFailures
      ? windowSeconds * (1 - (maxFailures - counts.current) / counts.previous)
      : windowSeconds + windowSeconds * (1 - maxFailures / counts.current);
  // Allowed only once the estimate is below the limit, so strictly after allowedAt.
  return Math.max(1, Math.floor(allowedAt - elapsedSeconds) + 1);
}

/**
 * Brute-force protection: failures per handle and per address, stored so every instance sees them, weighed
 * over a sliding window. Concurrent attempts may overshoot by their number (see docs/design/limits.md).
 */
export class SignInLimits {
  constructor(
    private readonly store: FailedAttemptStore,
    private readonly settings: SignInLimitSettings,
    private readonly now: () => number = Date.now,
  ) {}

  private window(): { start: number; elapsedSeconds: number } {
    const nowSeconds = this.now() / 1000;
    const start = Math.floor(nowSeconds / this.settings.windowSeconds) * this.settings.windowSeconds;
    return { start, elapsedSeconds: nowSeconds - start };
  }

  /** RATE_LIMITED, with the seconds until every subject is below the limit again, when a subject has used up its failures. */
  async check(subjects: readonly AttemptSubject[]): Promise<void> {
    const { start, elapsedSeconds } = this.window();
    const { windowSeconds, maxFailures } = this.settings;
    const [current, previous] = await this.store.failures(subjects, [start, start - windowSeconds]);
    const counts = subjects.map((_, i): WindowCounts => ({ current: current![i]!, previous: previous![i]! }));
    const refused = counts.filter((c) => slidingFailures(c, elapsedSeconds / windowSeconds) >= maxFailures);
    if (refused.length > 0)
      throw rateLimited(Math.max(...refused.map((c) => secondsUntilAllowed(c, elapsedSeconds, this.settings))));
  }

  /**
   * Counts a password check or sign-up of `clientAddress`, right or wrong, in the same sliding window;
   * RATE_LIMITED, counting nothing, once the address has `maxChecks` in it. Counted atomically, so
   * concurrent attempts cannot overshoot.
   */
  async countCheck(clientAddress: string): Promise<void> {
    const { start, elapsedSeconds } = this.window();
    const { windowSeconds, maxChecks } = this.settings;
    const subject: AttemptSubject = { scope: 'checks', value: clientAddress };
    const [[current], [previous]] = (await this.store.failures([subject], [start, start - windowSeconds])) as [
      [number],
      [number],
    ];
    // Allowed while the estimate, this check included, is within the limit.
    const below = maxChecks - previous * (1 - elapsedSeconds / windowSeconds);
    const counted =
      current < below ? await this.store.countIfBelow(subject, start, below, this.expiry(start)) : current;
    if (counted === null) return;
    const limit = { maxFailures: maxChecks, windowSeconds };
    throw rateLimited(
      secondsUntilAllowed({ current: counted, previous }, elapsedSeconds, limit),
      'Too many password checks from this address',
    );
  }

  async recordFailure(subjects: readonly AttemptSubject[]): Promise<void> {
    const { start } = this.window();
    await this.store.recordFailure(subjects, start, this.expiry(start));
  }

  /** Read as the previous window until the next one ends; kept a minute more, since DynamoDB deletes expired items some time after. */
  private expiry(windowStart: number): number {
    return windowStart + 2 * this.settings.windowSeconds + 60;
  }
}

/** The subjects a password check is counted against. */
export function attemptSubjects(handle: string, clientAddress: string): AttemptSubject[] {
  return [
    { scope: 'handle', value: handle },
    { scope: 'address', value: clientAddress },
  ];
}
