import { readFileSync } from 'node:fs';
import {
  TypeInfo,
  buildSchema,
  getNamedType,
  isInterfaceType,
  isObjectType,
  parse,
  validate,
  visit,
  visitWithTypeInfo,
  type OperationDefinitionNode,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadTypeDefs } from '../../src/graphql/apollo.js';
import { readExampleOperations } from '../../src/http/graphiql-operations.js';

const schema = buildSchema(loadTypeDefs());
const operations = readExampleOperations();

describe('docs/operations', () => {
  it('has an example for every main use', () => {
    expect(operations.map((o) => o.name)).toEqual(
      expect.arrayContaining([
        'sign-up',
        'update-profile',
        'follow',
        'unfollow',
        'create-post',
        'home-timeline',
        'author-posts',
        'tag-timeline',
        'public-timeline',
        'like-post',
        'react',
        'view-post',
        'add-comment',
        'post-with-comments',
        'thread',
        'comment-context',
        'reply',
        'delete-comment',
        'earlier-comments',
        'suggestions',
        'degrees-of-separation',
        'network',
        'followers',
        'block',
        'unblock',
        'mute',
        'unmute',
        'blocked-and-muted',
        'repost',
        'post-engagement',
        'notifications',
        'notifications-since',
        'mark-notifications-read',
        'notification-updates',
        'timeline-updates',
        'refresh-timeline',
        'fan-out-status',
        'search-users',
        'trending-tags',
        'search-tags',
      ]),
    );
  });

  it.each(operations.map((o) => [o.name, o] as const))(
    '%s is one named operation that is valid against schema.graphql',
    (_name, operation) => {
      const document = parse(operation.document);
      expect(validate(schema, document)).toEqual([]);
      const definitions = document.definitions.filter(
        (d): d is OperationDefinitionNode => d.kind === 'OperationDefinition',
      );
      expect(definitions).toHaveLength(1);
      expect(definitions[0]!.name?.value).toBeTruthy();
      // Its example variables name exactly the operation's variables.
      const declared = (definitions[0]!.variableDefinitions ?? []).map((v) => v.variable.name.value);
      for (const name of Object.keys(JSON.parse(operation.variables) as object)) expect(declared).toContain(name);
    },
  );

  it.each(operations.map((o) => [o.name, o] as const))(
    '%s selects `id` on every object that has one, so client caches can normalize it',
    (_name, operation) => {
      const typeInfo = new TypeInfo(schema);
      const withoutId: string[] = [];
      visit(
        parse(operation.document),
        visitWithTypeInfo(typeInfo, {
          Field(field) {
            const type = getNamedType(typeInfo.getType());
            if (!field.selectionSet || !(isObjectType(type) || isInterfaceType(type)) || !type.getFields().id) return;
            const selectsId = field.selectionSet.selections.some(
              (s) => s.kind === 'Field' && s.name.value === 'id' && !s.alias,
            );
            if (!selectsId) withoutId.push(`${field.alias?.value ?? field.name.value}: ${type.name}`);
          },
        }),
      );
      expect(withoutId).toEqual([]);
    },
  );

  it('are linked from the README, not copied into it', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(readme).toContain('](docs/operations/)');
    expect(readme).not.toMatch(/```graphql/);
  });
});
