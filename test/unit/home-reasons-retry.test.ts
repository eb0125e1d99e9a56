import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { HomeReasonsMigration } from '../../scripts/home-reasons-migration.js';

const conflict = () => new TransactionConflictException({ message: 'in a transaction', $metadata: {} });

/** A table whose updates of one entry meet `conflicts` service transactions before they go through. */
function conflictingTable(conflicts: number) {
  const tries: string[] = [];
  const client = {
    async send(command: UpdateCommand) {
      tries.push(String(command.input.Key!.sk));
      if (tries.length <= conflicts) throw conflict();
      return {};
    },
  } as unknown as DynamoDBDocumentClient;
  return { table: { client, tableName: 't' }, tries };
}

const marker = {
  entryKey: { pk: 'HOME#usr_a', sk: 'pst_1' },
  original: true,
  reposters: new Set(['usr_b']),
  shown: 'usr_b',
};

describe('npm run timelines:reasons beside a running service', () => {
  it('tries an update again when a service transaction holds its entry', async () => {
    const { table, tries } = conflictingTable(2);
    await expect(new HomeReasonsMigration(table).migrate([marker])).resolves.toBe(1);
    expect(tries).toEqual(['pst_1', 'pst_1', 'pst_1']);
  });

  it('stops, naming the conflict, when the entry stays held', async () => {
    const { table, tries } = conflictingTable(Infinity);
    await expect(new HomeReasonsMigration(table).migrate([marker])).rejects.toThrow(TransactionConflictException);
    expect(tries).toHaveLength(8);
  });
});
