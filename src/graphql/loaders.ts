import DataLoader from 'dataloader';
import type { UserRecord } from '../domain/models.js';
import type { Stores } from '../stores/stores.js';

/** The backend's limit for one batched read (BatchGetItem takes 100 keys). */
export const MAX_BATCH = 100;

/**
 * Per-request DataLoaders: every lookup a field resolver makes goes through one of these,
 * so a page of 20 or 100 items costs the same few backend calls.
 */
export function createLoaders(stores: Stores) {
  return {
    user: new DataLoader<string, UserRecord | null>((ids) => stores.users.getMany(ids), { maxBatchSize: MAX_BATCH }),
    userIdByHandle: new DataLoader<string, string | null>((handles) => stores.users.idsByHandle(handles), {
      maxBatchSize: MAX_BATCH,
    }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
