/**
 * A process of its own that replays a page's captured requests (`replayRequest`) in windows its parent asks for, so
 * that the replay's CPU is read as the service's is: from /proc, over several processes (see `cpuPerPage`).
 */
import { CpuMeter } from './cpu.js';
import { type ReplayMessage, type ReplayWindow, replayRequest } from './cpu-per-page.js';
import { runLoops } from './loops.js';

const send = (message: unknown) => process.send!(message);
let replay: ReturnType<typeof replayRequest> | null = null;
// runLoops reads this process's CPU too; the parent reads it from /proc instead, as it reads the services'.
const ownCpu = new CpuMeter({});
// The parent is gone (it closed the channel, or died): close the client, so that nothing keeps this process up.
process.on('disconnect', () => replay?.close());
process.on('message', async (message: ReplayMessage) => {
  if (message.kind === 'start') {
    replay = replayRequest(message.endpoint, message.requests);
    send({ kind: 'ready' });
  } else if (message.kind === 'window' && replay) {
    const { latencies, failures, elapsedMs } = await runLoops(1, message.seconds, replay.replay, ownCpu);
    send({ kind: 'window', window: { latencies, failures, elapsedMs } satisfies ReplayWindow });
  } else if (message.kind === 'stop') {
    process.disconnect();
  }
});
