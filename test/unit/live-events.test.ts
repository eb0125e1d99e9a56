import { describe, expect, it } from 'vitest';
import { InProcessPubSub } from '../../src/stores/pubsub.js';
import { EventStream } from '../../src/usecases/live-updates.js';

describe('EventStream', () => {
  it('keeps at most its bound of unread events, dropping the oldest', async () => {
    const stream = new EventStream<number>(2);
    for (const n of [1, 2, 3]) stream.push(n);
    expect(await stream.next()).toEqual({ value: 2, done: false });
    expect(await stream.next()).toEqual({ value: 3, done: false });
  });

  it('ends a waiting next() at once on return(), and tells its end listeners once', async () => {
    const stream = new EventStream<number>(2);
    let ended = 0;
    stream.onEnd(() => (ended += 1));
    const waiting = stream.next();
    await stream.return();
    await stream.return();
    expect(await waiting).toEqual({ value: undefined, done: true });
    stream.push(1);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
    expect(ended).toBe(1);
  });
});

describe('InProcessPubSub', () => {
  it('delivers to the listeners of a channel until they unsubscribe', async () => {
    const pubsub = new InProcessPubSub();
    const heard: string[] = [];
    const stop = await pubsub.subscribe(['a', 'b'], (channel, payload) => heard.push(`${channel}:${payload}`));
    await pubsub.publish([
      { channel: 'a', payload: '1' },
      { channel: 'c', payload: '2' },
      { channel: 'b', payload: '3' },
    ]);
    stop();
    await pubsub.publish([{ channel: 'a', payload: '4' }]);
    expect(heard).toEqual(['a:1', 'b:3']);
  });
});
