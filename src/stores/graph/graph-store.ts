/**
 * The follow graph. Two backends implement it — DynamoDB adjacency lists (the embedded
 * default) and Neo4j — and the use cases never know which one answers. Methods are
 * plural: ids in, aligned lists out, so a page of users costs one call.
 */
export interface GraphUser {
  id: string;
  handle: string;
  interests: string[];
}

export interface GraphStore {
  readonly backend: 'dynamodb' | 'neo4j';
  /** Resolves when the backend answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Creates or updates the users' nodes (handle and interests). */
  upsertUsers(users: readonly GraphUser[]): Promise<void>;
}
