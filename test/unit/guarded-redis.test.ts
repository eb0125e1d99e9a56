import { afterEach, describe, expect, it, vi } from 'vitest';
import { GuardedRedis } from '../../src/stores/redis/guarded-redis.js';
import { capturingLogger } from '../helpers/app.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';

const TIMEOUTS = { connectMs: 500, commandMs: 200, retryIntervalMs: 300 };

let server: RedisServer | undefined;
let guarded: GuardedRedis | undefined;
afterEach(async () => {
  await guarded?.close();
  await server?.stop();
  guarded = server = undefined;
});

async function open() {
  server = await startRedis();
  const logger = capturingLogger();
  guarded = new GuardedRedis(server.url, 'redis', TIMEOUTS, logger);
  await guarded.connect();
  return { guarded, logger, server };
}

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

const stateLines = (logger: ReturnType<typeof capturingLogger>) =>
  logger.entries.filter((entry) => entry.msg.startsWith('dependency')).map((entry) => entry.msg);

describe('GuardedRedis', () => {
  it('falls back at once while Redis is down, logs the outage once, prints nothing of its own, and closes the circuit when Redis is back', async () => {
    const { guarded, logger, server: first } = await open();
    expect(
      await guarded.run(
        (redis) => redis.set('k', 'v'),
        () => 'fallback',
      ),
    ).toBe('OK');
    const written = vi.spyOn(process.stderr, 'write');
    try {
      await first.stop();
      await vi.waitFor(() => expect(guarded.circuitState()).not.toBe('closed'));
      for (let n = 0; n < 20; n++) {
        const { result, ms } = await timed(() =>
          guarded.run(
            (redis) => redis.get('k'),
            () => 'fallback',
          ),
        );
        expect(result).toBe('fallback');
        expect(ms).toBeLessThan(TIMEOUTS.commandMs);
      }
      expect(await guarded.answers(1000)).toBe(false);
      expect(stateLines(logger)).toEqual(['dependency unavailable']);

      const recovered = vi.fn();
      guarded.onRecovered(recovered);
      server = await startRedis(first.port);
      await vi.waitFor(() => expect(guarded.circuitState()).toBe('closed'), { timeout: 5_000, interval: 20 });
      expect(recovered).toHaveBeenCalledTimes(1);
      expect(
        await guarded.run(
          (redis) => redis.set('k', 'again'),
          () => 'fallback',
        ),
      ).toBe('OK');
      expect(await guarded.answers(1000)).toBe(true);
      expect(stateLines(logger)).toEqual(['dependency unavailable', 'dependency answers again']);
      expect(written.mock.calls.filter(([chunk]) => String(chunk).includes('ioredis'))).toEqual([]);
    } finally {
      written.mockRestore();
    }
  });

  it('costs one timeout when Redis stalls, then falls back at once with one probe per interval until it answers', async () => {
    const { guarded, logger, server } = await open();
    server.pause();
    try {
      const first = await timed(() =>
        guarded.run(
          (redis) => redis.get('k'),
          () => 'fallback',
        ),
      );
      expect(first.result).toBe('fallback');
      expect(first.ms).toBeGreaterThanOrEqual(TIMEOUTS.commandMs - 5);
      expect(first.ms).toBeLessThan(TIMEOUTS.commandMs + 300);
      // Concurrent callers during the stall wait for nothing.
      const rest = await Promise.all(
        Array.from({ length: 10 }, () =>
          timed(() =>
            guarded.run(
              (redis) => redis.get('k'),
              () => 'fallback',
            ),
          ),
        ),
      );
      for (const { result, ms } of rest) {
        expect(result).toBe('fallback');
        expect(ms).toBeLessThan(50);
      }
      // The probe goes out after the interval (half-open) and, unanswered, opens the circuit again.
      await vi.waitFor(() => expect(guarded.circuitState()).toBe('half-open'), { timeout: 2_000, interval: 5 });
      await vi.waitFor(() => expect(guarded.circuitState()).toBe('open'), { timeout: 2_000, interval: 5 });
    } finally {
      server.resume();
    }
    await vi.waitFor(() => expect(guarded.circuitState()).toBe('closed'), { timeout: 5_000, interval: 20 });
    expect(
      await guarded.run(
        (redis) => redis.set('k', 'v'),
        () => 'fallback',
      ),
    ).toBe('OK');
    expect(stateLines(logger)).toEqual(['dependency unavailable', 'dependency answers again']);
  });
});
