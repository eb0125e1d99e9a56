import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEFAULT_HISTORY_DAYS, type NetworkOptions } from './network.js';
import type { SeedCheckpoint } from './seed.js';

/**
 * A seed's checkpoint, a small JSON file: the network it writes (sizes, seed, end of its history),
 * the settings its records depend on, the table it writes to, and how many parts of each stage
 * are written. The network and its ids come out the same from these, so a resumed seed writes
 * the parts that are missing, and the part it was in again.
 */
export interface SeedPlan {
  size: Required<NetworkOptions>;
  /** Settings the records depend on (placement, home retention) and the part size. */
  settings: Record<string, number>;
  /** The DynamoDB written to ('embedded' or its endpoint) and the table prefix. */
  target: string;
}

interface State extends Omit<SeedPlan, 'size'> {
  /** Without `days` in a checkpoint from before --days. */
  size: NetworkOptions;
  version: 1;
  startedAt: string;
  finishedAt: string | null;
  parts: Record<string, number>;
}

export class CheckpointFile implements SeedCheckpoint {
  private constructor(
    readonly path: string,
    private readonly state: State,
  ) {}

  /** Where the seed of the table with this prefix keeps its checkpoint. */
  static pathFor(dataDir: string, tablePrefix: string): string {
    return join(dataDir, `seed-checkpoint${tablePrefix ? `-${tablePrefix}` : ''}.json`);
  }

  /** The checkpoint at `path`, or null when there is none; throws a one-line explanation when it cannot be read. */
  static read(path: string): CheckpointFile | null {
    if (!existsSync(path)) return null;
    let state: State;
    try {
      state = JSON.parse(readFileSync(path, 'utf8')) as State;
    } catch (error) {
      throw new Error(
        `The seed checkpoint ${path} cannot be read (${(error as Error).message}): delete it and start again.`,
        { cause: error },
      );
    }
    if (state?.version !== 1 || typeof state.parts !== 'object' || typeof state.size !== 'object') {
      throw new Error(`The seed checkpoint ${path} is not one this version writes: delete it and start again.`);
    }
    return new CheckpointFile(path, state);
  }

  /** A new checkpoint for `plan`, nothing written yet. */
  static begin(path: string, plan: SeedPlan): CheckpointFile {
    const checkpoint = new CheckpointFile(path, {
      version: 1,
      ...plan,
      startedAt: new Date().toISOString(),
      finishedAt: null,
      parts: {},
    });
    checkpoint.write();
    return checkpoint;
  }

  get plan(): SeedPlan {
    // A checkpoint from before --days spans the default history.
    const size = { days: DEFAULT_HISTORY_DAYS, ...this.state.size };
    return { size, settings: this.state.settings, target: this.state.target };
  }

  get startedAt(): string {
    return this.state.startedAt;
  }

  get finishedAt(): string | null {
    return this.state.finishedAt;
  }

  /** What differs between this checkpoint's plan and `plan`, one phrase each ("HOME_RETENTION_DAYS was 30, is 7"). */
  differences(plan: Omit<SeedPlan, 'size'>): string[] {
    const found: string[] = [];
    if (plan.target !== this.state.target) found.push(`the target was ${this.state.target}, is ${plan.target}`);
    for (const [name, value] of Object.entries(plan.settings)) {
      const was = Object.hasOwn(this.state.settings, name) ? this.state.settings[name] : undefined;
      if (was !== value) found.push(`${name} was ${was ?? 'not set'}, is ${value}`);
    }
    return found;
  }

  partsDone(stage: string): number {
    return Object.hasOwn(this.state.parts, stage) ? this.state.parts[stage]! : 0;
  }

  save(stage: string, parts: number): void {
    this.state.parts[stage] = parts;
    this.write();
  }

  finish(): void {
    this.state.finishedAt = new Date().toISOString();
    this.write();
  }

  remove(): void {
    rmSync(this.path, { force: true });
  }

  /** Written whole to a side file and renamed over the old one: a kill leaves one or the other. */
  private write(): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const next = `${this.path}.next`;
    writeFileSync(next, `${JSON.stringify(this.state, null, 1)}\n`);
    renameSync(next, this.path);
  }
}
