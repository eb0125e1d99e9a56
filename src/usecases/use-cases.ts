import type { Stores } from '../stores/stores.js';
import { UserUseCases } from './users.js';

export function createUseCases(stores: Stores) {
  return {
    users: new UserUseCases(stores.users, stores.graph),
  };
}

export type UseCases = ReturnType<typeof createUseCases>;
