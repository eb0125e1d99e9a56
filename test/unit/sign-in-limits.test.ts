import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import type { AttemptSubject, FailedAttemptStore } from '../../src/stores/account-store.js';
import { SignInLimits, secondsUntilAllowed, slidingFailures } from '../../src/usecases/sign-in-limits.js';

const settings = { maxFailures: 10, windowSeconds: 60, maxChecks: 20 };

/** The store's contract on a Map: failures per subject and window start. */
class CountingStore implements FailedAttemptStore {
  readonly counts = new Map<string, number>();
  private key = (s: AttemptSubject, start: number) => `${s.scope}|${s.value}|${start}`;
  async failures(subjects: readonly AttemptSubject[], windowStarts: readonly number[]): Promise<number[][]> {
    return windowStarts.map((start) => subjects.map((s) => this.counts.get(this.key(s, start)) ?? 0));
  }
  async recordFailure(subjects: readonly AttemptSubject[], windowStart: number): Promise<void> {
    for (const s of subjects)
      this.counts.set(this.key(s, windowStart), (this.counts.get(this.key(s, windowStart)) ?? 0) + 1);
  }
  async countIfBelow(subject: AttemptSubject, windowStart: number, below: number): Promise<number | null> {
    const count = this.counts.get(this.key(subject, windowStart)) ?? 0;
    if (count >= below) return count;
    this.counts.set(this.key(subject, windowStart), count + 1);
    return null;
  }
}

const subjects: AttemptSubject[] = [
  { scope: 'handle', value: 'ada' },
  { scope: 'address', value: '127.0.0.1' },
];

async function refusal(limits: SignInLimits): Promise<number | null> {
  try {
    await limits.check(subjects);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('RATE_LIMITED');
    return Number((error as AppError).details.retryAfterSeconds);
  }
}

describe('the sliding sign-in window', () => {
  it('weighs the previous window by the share of it still within the last window', () => {
    expect(slidingFailures({ current: 3, previous: 10 }, 0)).toBe(13);
    expect(slidingFailures({ current: 3, previous: 10 }, 0.25)).toBe(10.5);
    expect(slidingFailures({ current: 3, previous: 10 }, 1)).toBe(3);
  });

  it('refuses a burst on the far side of a window boundary, which fixed windows let through', async () => {
    let nowMs = 119_000; // one second before the window of 120 s starts
    const store = new CountingStore();
    const limits = new SignInLimits(store, settings, () => nowMs);
    for (let i = 0; i < 10; i++) {
      await limits.check(subjects);
      await limits.recordFailure(subjects);
    }
    // At 120 s the ten still weigh 10 × (1 - 0): allowed from just after it.
    expect(await refusal(limits)).toBe(2);

    nowMs = 120_500; // the next fixed window, half a second in: ten failures 1.5 s ago still count
    const retryAfter = await refusal(limits);
    // 10 × (1 - f) < 10 as soon as f > 0: one more attempt would be allowed...
    expect(retryAfter).toBeNull();
    await limits.recordFailure(subjects);
    // ...and, failed, refused again until the previous window's share has shrunk by one failure (6 s in).
    expect(await refusal(limits)).toBe(6);
    nowMs = 126_001;
    expect(await refusal(limits)).toBeNull();
  });

  it('spreads the failures after a boundary out, where fixed windows let a second burst through at once', async () => {
    let nowMs = 0;
    const store = new CountingStore();
    const limits = new SignInLimits(store, settings, () => nowMs);
    const failedAt: number[] = [];
    // An attacker who tries every 100 ms from the last second of a window on, for three windows.
    for (nowMs = 59_000; nowMs < 239_000; nowMs += 100) {
      if ((await refusal(limits)) !== null) continue;
      await limits.recordFailure(subjects);
      failedAt.push(nowMs);
    }
    const mostWithin = (ms: number) =>
      Math.max(...failedAt.map((at) => failedAt.filter((t) => t >= at && t < at + ms).length));
    // Fixed windows: 10 in the last second before the boundary and 10 in the first one after it.
    expect(mostWithin(2_000)).toBe(11);
    expect(mostWithin(10_000)).toBe(12);
    // After the first burst, about one failure per window / maxFailures.
    expect(failedAt.length).toBeLessThanOrEqual(10 + 3 * 10);
    expect(failedAt.length).toBeGreaterThanOrEqual(10 + 2 * 10);
  });

  it('counts every password check of an address, right or wrong, and refuses past maxChecks without counting', async () => {
    let nowMs = 0;
    const store = new CountingStore();
    const limits = new SignInLimits(store, { ...settings, maxChecks: 3 }, () => nowMs);
    const refusedAfter = () =>
      limits.countCheck('10.0.0.1').then(
        () => null,
        (error: AppError) => [error.code, error.details.retryAfterSeconds],
      );
    for (let i = 0; i < 3; i++) expect(await refusedAfter()).toBeNull();
    // Three in the current window alone: allowed once the next window has begun.
    expect(await refusedAfter()).toEqual(['RATE_LIMITED', 61]);
    expect(store.counts.get('checks|10.0.0.1|0')).toBe(3);
    expect(await limits.countCheck('10.0.0.2')).toBeUndefined();
    // Half a second into the next window, the three weigh 3 × (1 - 0.5 / 60) < 3: one more, then refused again.
    nowMs = 60_500;
    expect(await refusedAfter()).toBeNull();
    expect((await refusedAfter())![0]).toBe('RATE_LIMITED');
  });

  it('tells how long until the estimate falls below the limit', () => {
    // Within the current window: 4 + 12 × (1 - t/60) < 10 once t > 30; at 30 it is still 10.
    expect(secondsUntilAllowed({ current: 4, previous: 12 }, 10, settings)).toBe(21);
    expect(secondsUntilAllowed({ current: 4, previous: 12 }, 10.5, settings)).toBe(20);
    // The current window alone at the limit: the next window, once 12 × (1 - t/60) < 10 (t > 10).
    expect(secondsUntilAllowed({ current: 12, previous: 0 }, 50, settings)).toBe(21);
    expect(secondsUntilAllowed({ current: 10, previous: 40 }, 59.5, settings)).toBe(1);
  });
});
