import type { GraphStore } from './graph/graph-store.js';
import type { UserStore } from './user-store.js';

/** Every store the service uses, built once at start by the composition root. */
export interface Stores {
  users: UserStore;
  graph: GraphStore;
}
