import { describe, expect, it } from 'vitest';
import { emptyCost, startStoreRequest, withCostMeter } from '../../src/observability/cost.js';

/** A store request that takes `ms` to answer. */
const request = (ms: number) => {
  const answered = startStoreRequest();
  return new Promise<void>((resolve) => setTimeout(resolve, ms)).then(answered);
};

describe('waves', () => {
  it('count the sequential round trips on the critical path, not the requests', async () => {
    const meter = emptyCost();
    await withCostMeter(meter, async () => {
      // Wave 1: two requests at once; one answers late.
      const slow = request(30);
      await request(5);
      // Sent after a wave-1 answer: wave 2, even while the slow wave-1 request is still out.
      await Promise.all([request(5), request(5)]);
      await slow;
    });
    expect(meter.waves).toBe(2);
    await withCostMeter(meter, () => request(1));
    expect(meter.waves).toBe(3);
  });
});
