/** A seeded pseudo-random source (mulberry32): the same seed gives the same sequence on every machine. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.below(max - min + 1);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  /** The numbers 0..n-1 in a random order (Fisher-Yates). */
  permutation(n: number): number[] {
    const order = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = this.below(i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    return order;
  }
}

/**
 * Draws ranks 0..n-1 with probability proportional to 1 / (rank + 1)^exponent — Zipf's law,
 * the long tail of real popularity: a few ranks are drawn very often, most rarely.
 */
export class ZipfSampler {
  private readonly cumulative: Float64Array;

  constructor(n: number, exponent: number) {
    this.cumulative = new Float64Array(n);
    let total = 0;
    for (let rank = 0; rank < n; rank++) {
      total += 1 / (rank + 1) ** exponent;
      this.cumulative[rank] = total;
    }
  }

  draw(random: Random): number {
    const target = random.next() * this.cumulative[this.cumulative.length - 1]!;
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.cumulative[mid]! > target) high = mid;
      else low = mid + 1;
    }
    return low;
  }
}
