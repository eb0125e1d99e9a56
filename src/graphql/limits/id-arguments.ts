import type { ApolloServerPlugin } from '@apollo/server';
import {
  type ASTNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  BREAK,
  GraphQLError,
  Kind,
  TypeInfo,
  getArgumentValues,
  getVariableValues,
  isInputObjectType,
  isListType,
  isNonNullType,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { MAX_ID_LENGTH } from '../../domain/ids.js';

/** The path of the first ID in `value` (of `type`) that is longer than any id, or null. */
function overLongId(value: unknown, type: GraphQLInputType, path: string): string | null {
  if (value === null || value === undefined) return null;
  if (isNonNullType(type)) return overLongId(value, type.ofType, path);
  if (isListType(type)) {
    for (const item of value as unknown[]) {
      const found = overLongId(item, type.ofType, path);
      if (found) return found;
    }
    return null;
  }
  if (isInputObjectType(type)) {
    for (const [name, field] of Object.entries(type.getFields())) {
      const found = overLongId((value as Record<string, unknown>)[name], field.type, `${path}.${name}`);
      if (found) return found;
    }
    return null;
  }
  return type.name === 'ID' && typeof value === 'string' && value.length > MAX_ID_LENGTH ? path : null;
}

function overLongIdArgument(
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Record<string, unknown>,
): string | null {
  const values = getArgumentValues(field, node, variables);
  for (const argument of field.args) {
    const found = overLongId(values[argument.name], argument.type, argument.name);
    if (found) return found;
  }
  return null;
}

/** The first over-long ID argument of the operation or of a fragment it spreads (directly or not), or null. */
function firstOverLongId(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): string | null {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const pending: ASTNode[] = [operation];
  const spread = new Set<string>();
  let found: string | null = null;
  const typeInfo = new TypeInfo(schema);
  const visitor = visitWithTypeInfo(typeInfo, {
    Field(node) {
      const field = typeInfo.getFieldDef();
      found = field ? overLongIdArgument(field, node, variables) : null;
      return found ? BREAK : undefined;
    },
    FragmentSpread(node) {
      const fragment = fragments.get(node.name.value);
      if (fragment && !spread.has(node.name.value)) {
        spread.add(node.name.value);
        pending.push(fragment);
      }
    },
  });
  for (let next = pending.pop(); next && !found; next = pending.pop()) visit(next, visitor);
  return found;
}

/** BAD_USER_INPUT naming the first over-long ID argument of the operation, or null (variables that do not coerce are execution's to refuse). */
export function overLongIdRefusal(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  requestVariables: Record<string, unknown> | undefined,
): GraphQLError | null {
  const variables = getVariableValues(schema, operation.variableDefinitions ?? [], requestVariables ?? {});
  if (variables.errors) return null;
  const found = firstOverLongId(schema, document, operation, variables.coerced);
  if (!found) return null;
  return new GraphQLError(`${found}: is longer than any id (at most ${MAX_ID_LENGTH} characters)`, {
    extensions: { code: 'BAD_USER_INPUT', field: found, http: { status: 400 } },
  });
}

/**
 * Refuses, before any resolver runs, an ID argument anywhere in the operation that is longer than any id, so
 * no oversized id reaches a store; the use cases check the shape of short ones.
 */
export function idArgumentsPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          if (!operation) return;
          const refused = overLongIdRefusal(schema, document, operation, request.variables);
          if (refused) throw refused;
        },
      };
    },
  };
}
