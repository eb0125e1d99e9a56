import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  Kind,
  getNamedType,
  isInterfaceType,
  isObjectType,
} from 'graphql';
import { MAX_MENTIONS } from '../../domain/mentions.js';
import { LIMITS } from '../../domain/validation.js';
import { HOPS } from '../../usecases/graph-queries.js';

/** What executing one operation could take, measured on the document before anything runs. */
export interface OperationMeasure {
  /** Nesting of fields: `{ viewer { id } }` is 2. */
  depth: number;
  /** Aliased fields, counting a fragment once for every place it is spread. */
  aliases: number;
  /**
   * Fields that may be resolved: every field costs 1 each time it may run (a few that read more
   * of the graph cost more, see FIELD_WEIGHTS), and a field that takes `first` or `last` (default 20) or
   * `ids` multiplies everything beneath it by that many.
   */
  cost: number;
  /** Fields that check or hash a password (PASSWORD_FIELDS), counting a fragment once for every place it is spread. */
  passwordChecks: number;
}

const NOTHING: OperationMeasure = { depth: 0, aliases: 0, cost: 0, passwordChecks: 0 };

/**
 * The mutations that run the password hash (scrypt, hundreds of milliseconds of CPU): the cost
 * limit counts each as one field, so the one-per-operation limit bounds them instead.
 */
const PASSWORD_FIELDS: ReadonlySet<string> = new Set(['Mutation.signUp', 'Mutation.signIn', 'Mutation.changePassword', 'Mutation.deleteAccount']);
const NO_VARIABLES: ReadonlyMap<string, unknown> = new Map();

/**
 * Measures `operation` with the request's variables. Fragments are measured once each and
 * reused (a measure scales linearly), so a document that spreads fragments into each other
 * many times takes time linear in its size, not in its expansion.
 */
export function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  requestVariables: Record<string, unknown> | undefined,
): OperationMeasure {
  // As execution coerces them: a variable sent as null is null (and a null `first` runs at the default
  // page size); only a variable left out takes its default.
  const variables = new Map<string, unknown>();
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const sent = requestVariables !== undefined && Object.hasOwn(requestVariables, name);
    variables.set(name, sent ? requestVariables[name] : valueOf(definition.defaultValue, NO_VARIABLES));
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const measuredFragments = new Map<string, OperationMeasure>();

  function measureFragment(name: string): OperationMeasure {
    const known = measuredFragments.get(name);
    if (known) return known;
    const fragment = fragments.get(name);
    // Validation has already refused unknown fragments and fragment cycles.
    const measure = fragment ? measureSelections(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value)) : NOTHING;
    measuredFragments.set(name, measure);
    return measure;
  }

  function measureSelections(selectionSet: SelectionSetNode, parentType: GraphQLNamedType | undefined | null): OperationMeasure {
    let depth = 0;
    let aliases = 0;
    let cost = 0;
    let passwordChecks = 0;
    for (const selection of selectionSet.selections) {
      let measure: OperationMeasure;
      switch (selection.kind) {
        case Kind.FIELD:
          measure = measureField(selection, parentType);
          break;
        case Kind.INLINE_FRAGMENT:
          measure = measureSelections(selection.selectionSet, selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parentType);
          break;
        case Kind.FRAGMENT_SPREAD:
          measure = measureFragment(selection.name.value);
          break;
      }
      depth = Math.max(depth, measure.depth);
      aliases += measure.aliases;
      cost += measure.cost;
      passwordChecks += measure.passwordChecks;
    }
    return { depth, aliases, cost, passwordChecks };
  }

  function measureField(field: FieldNode, parentType: GraphQLNamedType | undefined | null): OperationMeasure {
    const aliased = field.alias ? 1 : 0;
    // __typename is free; __schema and __type read the schema only, and the INTROSPECTION setting governs them.
    if (field.name.value.startsWith('__')) return { depth: 0, aliases: aliased, cost: 0, passwordChecks: 0 };
    const definition = fieldDefinition(parentType, field.name.value);
    const children = field.selectionSet && definition ? measureSelections(field.selectionSet, getNamedType(definition.type)) : NOTHING;
    return {
      depth: 1 + children.depth,
      aliases: aliased + children.aliases,
      cost: fieldWeight(parentType, definition) + listSize(field, parentType, definition, variables) * children.cost,
      passwordChecks: (definition && PASSWORD_FIELDS.has(`${parentType?.name}.${definition.name}`) ? 1 : 0) + children.passwordChecks,
    };
  }

  return measureSelections(operation.selectionSet, schema.getRootType(operation.operation));
}

/** The definition of an object's or an interface's field. */
function fieldDefinition(parentType: GraphQLNamedType | undefined | null, name: string): GraphQLField<unknown, unknown> | undefined {
  return isObjectType(parentType) || isInterfaceType(parentType) ? parentType.getFields()[name] : undefined;
}

/**
 * Fields that read more of the graph each time they run than a field of a page, which shares one
 * batched lookup with its siblings: a `mutuals` or `knownFollowers` connection intersects two
 * follow lists for its page and `totalCount` (the two counts, a whole list, an edge per entry).
 * Each costs this many fields, so a page of users that asks every one of them for such a list is
 * refused up front; the request's graph budget (GRAPH_MAX_READS, GRAPH_MAX_EDGES) bounds the rest.
 */
const FIELD_WEIGHTS: Record<string, number> = {
  'User.mutuals': 100,
  'User.knownFollowers': 100,
};

function fieldWeight(parentType: GraphQLNamedType | undefined | null, definition: GraphQLField<unknown, unknown> | undefined): number {
  return (definition && FIELD_WEIGHTS[`${parentType?.name}.${definition.name}`]) ?? 1;
}

/** Lists of objects without a `first`, at their most: a path of maxDepth hops, up to 3 `via` users, a text's mentions. */
const BOUNDED_LISTS: Record<string, number> = {
  'Separation.path': HOPS.separation.max + 1,
  'Suggestion.via': 3,
  'Post.mentions': MAX_MENTIONS,
  'Comment.mentions': MAX_MENTIONS,
};

/**
 * How many items a field may return: its `first` or `last` (20 when null or left out, as it runs), or how many `ids` it is given.
 * Values are clamped to 1-100: resolvers refuse anything outside with BAD_USER_INPUT, which is
 * the clearer answer for a client than a cost refusal.
 */
function listSize(
  field: FieldNode,
  parentType: GraphQLNamedType | undefined | null,
  definition: GraphQLField<unknown, unknown> | undefined,
  variables: ReadonlyMap<string, unknown>,
): number {
  if (!definition) return 1;
  const bounded = BOUNDED_LISTS[`${parentType?.name}.${definition.name}`];
  if (bounded !== undefined) return bounded;
  const argument = (name: string) => field.arguments?.find((a) => a.name.value === name)?.value;
  if (definition.args.some((a) => a.name === 'first' || a.name === 'last')) {
    // A field that pages both ways (User.timeline) is measured at the larger of the two.
    const sizes = ['first', 'last'].map((name) => valueOf(argument(name), variables)).filter((size): size is number => typeof size === 'number');
    return clampPageSize(sizes.length > 0 ? Math.max(...sizes) : LIMITS.pageSizeDefault);
  }
  if (definition.args.some((a) => a.name === 'ids')) {
    const ids = valueOf(argument('ids'), variables);
    return clampPageSize(Array.isArray(ids) ? ids.length : 1);
  }
  return 1;
}

function valueOf(node: ValueNode | undefined, variables: ReadonlyMap<string, unknown>): unknown {
  if (!node) return undefined;
  switch (node.kind) {
    case Kind.INT:
      return Number(node.value);
    case Kind.LIST:
      return node.values;
    case Kind.VARIABLE:
      return variables.get(node.name.value);
    default:
      return undefined;
  }
}

function clampPageSize(size: number): number {
  return Math.min(Math.max(size, 1), LIMITS.pageSizeMax);
}
