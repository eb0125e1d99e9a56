import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CURRENT, RELEASED, schemaChanges } from '../../scripts/schema-changes.js';

const released = readFileSync(RELEASED, 'utf8');
const current = readFileSync(CURRENT, 'utf8');

describe('the schema check (npm run schema:check)', () => {
  it('passes schema.graphql against the last release', async () => {
    expect((await schemaChanges(released, current)).refused).toEqual([]);
  });

  it('fails on a removed field, a removed argument and a changed type', async () => {
    const removedField = current.replace(
      /\n {2}"Distinct users who viewed the post."\n {2}viewCount: Int! @cost\(weight: 1\)/,
      '',
    );
    expect(removedField).not.toBe(current);
    expect((await schemaChanges(released, removedField)).refused.map((change) => change.path)).toEqual([
      'Post.viewCount',
    ]);
    const narrowed = current.replace('  bio: String\n', '  bio: String!\n');
    expect((await schemaChanges(narrowed, current)).refused.map((change) => change.type)).toEqual([
      'FIELD_TYPE_CHANGED',
    ]);
  });

  it('lets a field go once the last release deprecated it', async () => {
    const deprecated = released.replace(
      '  viewCount: Int!',
      '  viewCount: Int! @deprecated(reason: "Count views with your analytics.")',
    );
    const removed = current.replace(
      /\n {2}"Distinct users who viewed the post."\n {2}viewCount: Int! @cost\(weight: 1\)/,
      '',
    );
    expect((await schemaChanges(deprecated, removed)).refused).toEqual([]);
  });
});
