import { setTimeout as delay } from 'node:timers/promises';
import type { Passwords } from '../auth/passwords.js';
import { rateLimited } from '../domain/errors.js';
import { FairPool, PoolRefused } from '../lib/fair-pool.js';

const BUSY = 'The service is busy checking passwords';
/**
 * How long a refusal for a full queue takes to answer: a client that retries at once would otherwise
 * turn refusals into a flood of their own, each a request to serve, beside the hashes of everyone else.
 */
const QUEUE_FULL_ANSWER_MS = 1_000;

export interface PasswordHashingSettings {
  /** PASSWORD_HASH_CONCURRENCY. */
  concurrency: number;
  /** PASSWORD_HASH_QUEUE_PER_ADDRESS. */
  maxQueuedPerAddress: number;
  /** PASSWORD_HASH_QUEUE_TIMEOUT_MS. */
  maxWaitMs: number;
}

/**
 * Runs every password hash in one pool per process, fair between client addresses, so one address's flood
 * can neither hold every slot nor stand in front of another's sign-in (see docs/design/limits.md).
 */
export class PasswordHashing {
  private readonly pool: FairPool;

  constructor(
    private readonly passwords: Passwords,
    private readonly settings: PasswordHashingSettings,
  ) {
    const { concurrency, maxQueuedPerAddress, maxWaitMs } = settings;
    this.pool = new FairPool({
      concurrency,
      maxRunningPerKey: Math.max(1, concurrency - 1),
      maxQueuedPerKey: maxQueuedPerAddress,
      maxWaitMs,
    });
  }

  /** RATE_LIMITED when the address's hashes already wait at their cap: before the request costs any store call. */
  async admit(clientAddress: string): Promise<void> {
    if (this.pool.hasRoom(clientAddress)) return;
    await delay(QUEUE_FULL_ANSWER_MS);
    throw this.busy();
  }

  hash(password: string, clientAddress: string): Promise<string> {
    return this.inPool(clientAddress, () => this.passwords.hash(password));
  }

  verify(password: string, stored: string | null, clientAddress: string): Promise<boolean> {
    return this.inPool(clientAddress, () => this.passwords.verify(password, stored));
  }

  needsRehash(stored: string): boolean {
    return this.passwords.needsRehash(stored);
  }

  private async inPool<T>(clientAddress: string, task: () => Promise<T>): Promise<T> {
    try {
      return await this.pool.run(clientAddress, task);
    } catch (error) {
      if (!(error instanceof PoolRefused)) throw error;
      if (error.reason === 'queue full') await delay(QUEUE_FULL_ANSWER_MS);
      throw this.busy();
    }
  }

  /** Its waiting hashes are done or refused by then. */
  private busy() {
    return rateLimited(Math.ceil(this.settings.maxWaitMs / 1000), BUSY);
  }
}
