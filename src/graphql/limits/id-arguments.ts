import type { ApolloServerPlugin } from '@apollo/server';
import {
  type ASTNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  BREAK,
  GraphQLError,
  Kind,
  TypeInfo,
  getArgumentValues,
  getNamedType,
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

const holdingId = new WeakMap<GraphQLNamedType, boolean>();

/** Whether a value of `type` can hold an ID anywhere (in a list, or a field of an input object, at any depth). */
function holdsId(type: GraphQLInputType): boolean {
  const named = getNamedType(type);
  let holds = holdingId.get(named);
  if (holds === undefined) {
    holds = reachesId(named, new Set());
    holdingId.set(named, holds);
  }
  return holds;
}

/** Depth first over the input types `named` reaches, each once (input types may refer to themselves). */
function reachesId(named: GraphQLNamedType, seen: Set<GraphQLNamedType>): boolean {
  if (!isInputObjectType(named)) return named.name === 'ID';
  if (seen.has(named)) return false;
  seen.add(named);
  return Object.values(named.getFields()).some((field) => reachesId(getNamedType(field.type), seen));
}

/**
 * Operations without an ID argument anywhere, fragments included: their check always finds nothing. Apollo Server
 * keeps recent queries' parsed documents (an LRU cache per schema), so a repeated operation comes back as the same node.
 */
const withoutIdArguments = new WeakSet<OperationDefinitionNode>();

/**
 * The first over-long ID argument of the operation or of a fragment it spreads (directly or not), or null; and
 * whether any of its fields takes an ID at all.
 */
function firstOverLongId(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): { found: string | null; idArguments: boolean } {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const pending: ASTNode[] = [operation];
  const spread = new Set<string>();
  let found: string | null = null;
  let idArguments = false;
  const typeInfo = new TypeInfo(schema);
  const visitor = visitWithTypeInfo(typeInfo, {
    Field(node) {
      const field = typeInfo.getFieldDef();
      if (!field?.args.some((argument) => holdsId(argument.type))) return undefined;
      idArguments = true;
      found = overLongIdArgument(field, node, variables);
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
  return { found, idArguments };
}

/** BAD_USER_INPUT naming the first over-long ID argument of the operation, or null (variables that do not coerce are execution's to refuse). */
export function overLongIdRefusal(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  requestVariables: Record<string, unknown> | undefined,
): GraphQLError | null {
  if (withoutIdArguments.has(operation)) return null;
  const variables = getVariableValues(schema, operation.variableDefinitions ?? [], requestVariables ?? {});
  if (variables.errors) return null;
  const { found, idArguments } = firstOverLongId(schema, document, operation, variables.coerced);
  if (!idArguments) withoutIdArguments.add(operation);
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
