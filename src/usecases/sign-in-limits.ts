import { rateLimited } from '../domain/errors.js';
import type { AttemptSubject, FailedAttemptStore } from '../stores/account-store.js';

export interface SignInLimitSettings {
  /** SIGNIN_MAX_FAILURES: failures per subject and window after which every attempt is refused. */
  maxFailures: number;
  /** SIGNIN_WINDOW_SECONDS. */
  windowSeconds: number;
}

/**
 * Brute-force protection for every password check: failures are counted per handle and per
 * client address in fixed windows, in the store (so that every service instance sees the same
 * counts); once either subject has `maxFailures` in the current window, every attempt — right
 * password or wrong — is RATE_LIMITED until the window ends. Concurrent attempts that all pass the
 * check before any failure is counted may overshoot the limit by their number.
 */
export class SignInLimits {
  constructor(
    private readonly store: FailedAttemptStore,
    private readonly settings: SignInLimitSettings,
    private readonly now: () => number = Date.now,
  ) {}

  private window(): { start: number; end: number; nowSeconds: number } {
    const nowSeconds = this.now() / 1000;
    const start = Math.floor(nowSeconds / this.settings.windowSeconds) * this.settings.windowSeconds;
    return { start, end: start + this.settings.windowSeconds, nowSeconds };
  }

  /** RATE_LIMITED, with the seconds until the window ends, when a subject has used up its failures. */
  async check(subjects: readonly AttemptSubject[]): Promise<void> {
    const { start, end, nowSeconds } = this.window();
    const failures = await this.store.failures(subjects, start);
    if (failures.some((count) => count >= this.settings.maxFailures)) throw rateLimited(Math.max(1, Math.ceil(end - nowSeconds)));
  }

  async recordFailure(subjects: readonly AttemptSubject[]): Promise<void> {
    const { start, end } = this.window();
    // Kept a minute past the window: DynamoDB deletes expired items some time after, and nothing reads an old window.
    await this.store.recordFailure(subjects, start, end + 60);
  }
}

/** The subjects a password check is counted against. */
export function attemptSubjects(handle: string, clientAddress: string): AttemptSubject[] {
  return [
    { scope: 'handle', value: handle },
    { scope: 'address', value: clientAddress },
  ];
}
