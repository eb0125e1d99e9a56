import type { Logger } from '../logger.js';
import { dependencyUnavailable, dependencyUp } from './metrics.js';

/** A dependency as the labels of its metrics name it. */
export type DependencyName = 'dynamodb' | 'neo4j' | 'redis' | 'redis_subscriber';

/**
 * Whether a dependency answers, as its calls find out. The log gets one line per change of
 * state (a warn when it stops answering, an info when it answers again), not one per failed call.
 */
export class DependencyState {
  private up = true;

  constructor(
    readonly name: DependencyName,
    private readonly logger: Logger | null,
  ) {
    dependencyUp.set({ dependency: name }, 1);
  }

  isUp(): boolean {
    return this.up;
  }

  answered(): void {
    if (this.up) return;
    this.up = true;
    dependencyUp.set({ dependency: this.name }, 1);
    this.logger?.info('dependency answers again', { dependency: this.name });
  }

  /** A call that did not answer in time, could not reach it, or was not sent since the dependency is down. */
  unavailable(error?: unknown): void {
    dependencyUnavailable.inc({ dependency: this.name });
    this.down(error);
  }

  /** The dependency is known to be down (a lost connection), whether or not a call found out. */
  down(error?: unknown): void {
    if (!this.up) return;
    this.up = false;
    dependencyUp.set({ dependency: this.name }, 0);
    this.logger?.warn('dependency unavailable', {
      dependency: this.name,
      ...(error === undefined ? {} : { error: error instanceof Error ? error.message : String(error) }),
    });
  }
}
