import {
  type GraphQLField,
  type GraphQLSchema,
  buildSchema,
  getNamedType,
  isInterfaceType,
  isObjectType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadTypeDefs } from '../../src/graphql/apollo.js';
import { declaredCost, returnsList } from '../../src/graphql/limits/cost-directives.js';
import { resolvers } from '../../src/graphql/resolvers/index.js';

type ResolverMap = Record<string, Record<string, unknown> | undefined>;

/**
 * What the schema fails to declare: a field with a resolver of its own (which is where stores are
 * read) without `@cost`, a list without `@listSize` that no parent sizes, and declarations that name
 * arguments or fields that are not there.
 */
function undeclared(schema: GraphQLSchema, resolverMap: ResolverMap): string[] {
  const problems: string[] = [];
  const sizedBy = new Map<string, string[]>();
  const returning = new Map<string, string[]>();
  const fields: { type: string; field: GraphQLField<unknown, unknown> }[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if ((isObjectType(type) || isInterfaceType(type)) && !type.name.startsWith('__'))
      fields.push(...Object.values(type.getFields()).map((field) => ({ type: type.name, field })));
  }
  for (const { type, field } of fields) {
    const name = `${type}.${field.name}`;
    const { cost, listSize } = declaredCost(field);
    const resolver = resolverMap[type]?.[field.name];
    const resolves =
      typeof resolver === 'function' ||
      typeof (resolver as { subscribe?: unknown } | undefined)?.subscribe === 'function';
    if (resolves && cost === null) problems.push(`${name} has a resolver but no @cost`);
    const returned = getNamedType(field.type).name;
    returning.set(returned, [...(returning.get(returned) ?? []), name]);
    for (const argument of listSize?.slicingArguments ?? []) {
      if (!field.args.some((a) => a.name === argument))
        problems.push(`${name} slices by ${argument}, which it does not take`);
    }
    for (const sized of listSize?.sizedFields ?? []) {
      const child = schema.getType(returned);
      const childField = isObjectType(child) ? child.getFields()[sized] : undefined;
      if (!childField || !returnsList(childField))
        problems.push(`${name} sizes ${returned}.${sized}, which is not a list of it`);
      sizedBy.set(`${returned}.${sized}`, [...(sizedBy.get(`${returned}.${sized}`) ?? []), name]);
    }
  }
  for (const { type, field } of fields) {
    if (!returnsList(field) || declaredCost(field).listSize) continue;
    const name = `${type}.${field.name}`;
    const parents = returning.get(type) ?? [];
    const sizing = sizedBy.get(name) ?? [];
    const unsized = parents.filter((parent) => !sizing.includes(parent));
    if (parents.length === 0 || unsized.length > 0)
      problems.push(
        `${name} is a list without @listSize${unsized.length > 0 ? `, and ${unsized.join(', ')} do not size it` : ''}`,
      );
  }
  return problems;
}

describe('declared costs', () => {
  const typeDefs = loadTypeDefs();

  it('every field that resolves through code declares @cost, and every list its size', () => {
    expect(undeclared(buildSchema(typeDefs), resolvers as unknown as ResolverMap)).toEqual([]);
  });

  it('catches a store-reading field without @cost, a list without @listSize, and a connection that does not size its edges', () => {
    const withoutCost = typeDefs.replace('likeCount: Int! @cost(weight: 1)', 'likeCount: Int!');
    expect(undeclared(buildSchema(withoutCost), resolvers as unknown as ResolverMap)).toEqual([
      'Post.likeCount has a resolver but no @cost',
    ]);
    const withoutSize = typeDefs.replace('tags: [String!]! @listSize(assumedSize: 10)', 'tags: [String!]!');
    expect(undeclared(buildSchema(withoutSize), resolvers as unknown as ResolverMap)).toEqual([
      expect.stringMatching(/^Post\.tags is a list without @listSize/),
    ]);
    const unsizedEdges = typeDefs.replace(
      /(likedBy\([\s\S]*?\): UserConnection! @cost\(weight: 20\) @listSize\(assumedSize: 20, slicingArguments: \["first", "last"\]), sizedFields: \["edges"\]/,
      '$1',
    );
    expect(unsizedEdges).not.toBe(typeDefs);
    expect(undeclared(buildSchema(unsizedEdges), resolvers as unknown as ResolverMap)).toEqual([
      'UserConnection.edges is a list without @listSize, and Post.likedBy do not size it',
    ]);
  });
});
