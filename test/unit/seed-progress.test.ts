import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clock, createProgress } from '../../src/seed/progress.js';

/** A stderr that is not a terminal: plain lines. */
function plainStream() {
  const lines: string[] = [];
  const stream = {
    isTTY: false,
    write: (text: string) => lines.push(...text.split('\n').filter(Boolean)),
  } as unknown as NodeJS.WriteStream;
  return { lines, stream };
}

beforeEach(() => vi.useFakeTimers({ now: Date.parse('2026-11-27T12:00:00Z') }));
afterEach(() => vi.useRealTimers());

describe('seed progress', () => {
  it('prints a line every few seconds and at the end of each stage, with the whole run’s share and an ETA from its rate', () => {
    const { lines, stream } = plainStream();
    const progress = createProgress(stream);
    // 100 units of 2 items and 300 of 1: 500 items in all.
    progress.plan([
      { name: 'users', units: 100, weight: 2 },
      { name: 'follows', units: 300, weight: 1 },
    ]);
    const users = progress.stage('users', 100);
    users.tick(50);
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(5_000);
    users.tick(50);
    // A finished stage's line comes once, from finish().
    expect(lines).toEqual([]);
    users.finish();
    // 200 of 500 items in 5 s: 300 left at 40 a second.
    expect(lines).toEqual([expect.stringMatching(/^users .* 100\/100 100% .*\| all {2}40% {2}0:05 {2}ETA 0:08$/)]);

    const follows = progress.stage('follows', 300);
    vi.advanceTimersByTime(1_000);
    follows.tick(100);
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(4_000);
    follows.tick(50);
    // 350 of 500 items in 10 s: 150 left at 35 a second.
    expect(lines.at(-1)).toMatch(/^follows .* 150\/300 {2}50% .*\| all {2}70% {2}0:10 {2}ETA 0:04$/);
    follows.tick(150);
    expect(follows.finish()).toBe(5_000);
    expect(lines.at(-1)).toMatch(/\| all 100% {2}0:10 {2}ETA 0:00$/);
  });

  it('counts what an earlier run wrote as done, and draws the rate from this run’s writes only', () => {
    const { lines, stream } = plainStream();
    const progress = createProgress(stream);
    progress.plan([
      { name: 'users', units: 100, weight: 1, done: 100 },
      { name: 'likes', units: 100, weight: 1, done: 40 },
    ]);
    const likes = progress.stage('likes', 100, 40);
    vi.advanceTimersByTime(5_000);
    likes.tick(20);
    // 160 of 200 done, 20 of them in this run's 5 s: 40 left at 4 a second.
    expect(lines).toEqual([expect.stringMatching(/^likes .* 60\/100 {2}60% .*\| all {2}80% {2}0:05 {2}ETA 0:10$/)]);
  });

  it('shows no ETA before it has a rate to draw it from', () => {
    const { lines, stream } = plainStream();
    const progress = createProgress(stream);
    progress.plan([{ name: 'posts', units: 10, weight: 1 }]);
    const posts = progress.stage('posts', 10);
    vi.advanceTimersByTime(1_000);
    posts.tick(1);
    posts.finish();
    expect(lines).toEqual([expect.stringMatching(/\| all {2}10% {2}0:01 {2}ETA …$/)]);
  });

  it('writes clock times as m:ss', () => {
    expect([clock(0), clock(59_400), clock(61_000), clock(754_000)]).toEqual(['0:00', '0:59', '1:01', '12:34']);
  });
});
