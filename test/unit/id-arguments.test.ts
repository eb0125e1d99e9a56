import { buildSchema, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { overLongIdRefusal } from '../../src/graphql/limits/id-arguments.js';

// Input types that refer to each other; only one of them holds an ID itself.
const schema = buildSchema(`
  input A { b: B id: ID }
  input B { a: A }
  type Query { fa(a: A): Int fb(b: B): Int plain(n: Int): Int }
`);
const LONG = 'x'.repeat(3000);

function refusal(query: string, variables?: Record<string, unknown>) {
  const document = parse(query);
  const operation = document.definitions[0] as OperationDefinitionNode;
  return overLongIdRefusal(schema, document, operation, variables)?.extensions.field ?? null;
}

describe('the check of ID arguments', () => {
  it('finds an ID however deep in input types that refer to each other, whichever was asked about first', () => {
    expect(refusal('{ fa(a: { id: "short" }) }')).toBeNull();
    expect(refusal(`{ fb(b: { a: { id: "${LONG}" } }) }`)).toBe('b.a.id');
    expect(refusal(`{ fa(a: { b: { a: { id: "${LONG}" } } }) }`)).toBe('a.b.a.id');
  });

  it('checks an operation with ID arguments on every request, with its variables', () => {
    const query = 'query($b: B) { fb(b: $b) }';
    const document = parse(query);
    const operation = document.definitions[0] as OperationDefinitionNode;
    expect(overLongIdRefusal(schema, document, operation, { b: { a: { id: 'short' } } })).toBeNull();
    expect(overLongIdRefusal(schema, document, operation, { b: { a: { id: LONG } } })?.extensions.field).toBe('b.a.id');
  });

  it('finds nothing in an operation without ID arguments', () => {
    expect(refusal('{ plain(n: 1) }')).toBeNull();
  });
});
