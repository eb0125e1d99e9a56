import { lintCypherQuery, type DbSchema } from '@neo4j-cypher/language-support';
import { describe, expect, it } from 'vitest';
import { CYPHER, type CypherStatement } from '../../src/stores/graph/cypher.js';

/** The graph model the statements are written against: what a Neo4j database of this service holds. */
const MODEL: DbSchema = {
  labels: ['User'],
  relationshipTypes: ['FOLLOWS', 'BLOCKS', 'MUTES'],
  propertyKeys: ['id', 'handle', 'interests', 'at', 'justCreated'],
  graphSchema: [
    { from: 'User', to: 'User', relType: 'FOLLOWS' },
    { from: 'User', to: 'User', relType: 'BLOCKS' },
    { from: 'User', to: 'User', relType: 'MUTES' },
  ],
};

/** Lints a statement with only its declared parameters defined, so an undeclared one is a diagnostic too. */
function diagnostics(statement: CypherStatement) {
  const parameters = Object.fromEntries(statement.params.map((name) => [name, null]));
  return lintCypherQuery(statement.text, { ...MODEL, parameters }).diagnostics.map((d) => d.message);
}

describe('the Cypher catalog', () => {
  it.each(Object.entries(CYPHER))('%s uses every parameter it declares', (_name, statement) => {
    for (const name of statement.params) expect(statement.text).toMatch(new RegExp(`\\$${name}\\b`));
  });

  it.each(Object.entries(CYPHER))('%s passes Neo4j lint without diagnostics', (_name, statement) => {
    expect(diagnostics(statement)).toEqual([]);
  });

  it('catches broken statements (the check can fail)', () => {
    expect(diagnostics({ text: 'MATCH (u:User {id: $id} RETURN u', params: ['id'] })).not.toEqual([]);
    expect(diagnostics({ text: 'MATCH (u:User {id: $id}) RETURN u.id', params: [] })).not.toEqual([]);
    expect(diagnostics({ text: 'MATCH (u:Usr)-[:FOLOWS]->(v) RETURN v.id', params: [] })).not.toEqual([]);
  });
});
