import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type InlineFragmentNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  getDirectiveValues,
  getNamedType,
  isAbstractType,
  isInterfaceType,
  isLeafType,
  isObjectType,
  valueFromASTUntyped,
} from 'graphql';
import { LIMITS } from '../../domain/validation.js';
import { nodeTypeName } from '../node-types.js';
import { type FieldCost, costModel, returnsList } from './cost-directives.js';

/** What executing one operation could take, measured on the document before anything runs. */
export interface OperationMeasure {
  /** Nesting of fields: `{ viewer { id } }` is 2. */
  depth: number;
  /** Aliased fields, counting a fragment once for every place it is spread. */
  aliases: number;
  /** The estimate of the schema's declared costs (see docs/design/limits.md). */
  cost: number;
  /** Fields that check or hash a password (PASSWORD_FIELDS), counting a fragment once for every place it is spread. */
  passwordChecks: number;
}

const NOTHING: OperationMeasure = { depth: 0, aliases: 0, cost: 0, passwordChecks: 0 };

/**
 * The mutations that run the password hash (scrypt, hundreds of milliseconds of CPU): the cost
 * limit counts store requests, so the one-per-operation limit bounds them instead.
 */
const PASSWORD_FIELDS: ReadonlySet<string> = new Set([
  'Mutation.signUp',
  'Mutation.signIn',
  'Mutation.changePassword',
  'Mutation.deleteAccount',
]);

/** List sizes a parent's `@listSize(sizedFields:)` gives its child fields, by child field name. */
type SizedFields = ReadonlyMap<string, number>;
const UNSIZED: SizedFields = new Map();

/**
 * Measures `operation` as execution will run it (aliases, @skip/@include, variables), from the schema's @cost
 * and @listSize (see docs/design/limits.md).
 */
export function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  requestVariables: Record<string, unknown> | undefined,
): OperationMeasure {
  const model = costModel(schema);
  const variables: Record<string, unknown> = Object.create(null);
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const sent = requestVariables !== undefined && Object.hasOwn(requestVariables, name);
    variables[name] = sent ? requestVariables[name] : valueOf(definition.defaultValue, variables);
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  // A fragment's measure depends only on the sizes given to its fields, so it is measured once per
  // sizing: linear in the document, not in its expansion.
  const measuredFragments = new Map<string, OperationMeasure>();

  const runs = (selection: FieldNode | FragmentSpreadNode | InlineFragmentNode): boolean => {
    try {
      return (
        getDirectiveValues(GraphQLSkipDirective, selection, variables)?.if !== true &&
        getDirectiveValues(GraphQLIncludeDirective, selection, variables)?.if !== false
      );
    } catch {
      // A null condition: execution refuses the operation itself.
      return true;
    }
  };

  function measureFragment(name: string, sized: SizedFields): OperationMeasure {
    const key = `${name}|${[...sized].join(',')}`;
    const known = measuredFragments.get(key);
    if (known) return known;
    const fragment = fragments.get(name);
    // Validation has already refused unknown fragments and fragment cycles.
    const measure = fragment
      ? measureSelections(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value), sized)
      : NOTHING;
    measuredFragments.set(key, measure);
    return measure;
  }

  function measureSelections(
    selectionSet: SelectionSetNode,
    parentType: GraphQLNamedType | undefined | null,
    sized: SizedFields,
  ): OperationMeasure {
    let depth = 0;
    let aliases = 0;
    let cost = 0;
    let passwordChecks = 0;
    for (const selection of selectionSet.selections) {
      if (!runs(selection)) continue;
      let measure: OperationMeasure;
      switch (selection.kind) {
        case Kind.FIELD:
          measure = measureField(selection, parentType, sized);
          break;
        case Kind.INLINE_FRAGMENT:
          measure = measureSelections(
            selection.selectionSet,
            selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parentType,
            sized,
          );
          break;
        case Kind.FRAGMENT_SPREAD:
          measure = measureFragment(selection.name.value, sized);
          break;
      }
      depth = Math.max(depth, measure.depth);
      aliases += measure.aliases;
      cost += measure.cost;
      passwordChecks += measure.passwordChecks;
    }
    return { depth, aliases, cost, passwordChecks };
  }

  function measureField(
    field: FieldNode,
    parentType: GraphQLNamedType | undefined | null,
    sized: SizedFields,
  ): OperationMeasure {
    const aliased = field.alias ? 1 : 0;
    const name = field.name.value;
    if (name === '__typename') return { depth: 0, aliases: aliased, cost: 0, passwordChecks: 0 };
    const definition = fieldDefinition(parentType, name);
    if (!definition || !parentType) return { depth: 1, aliases: aliased, cost: 0, passwordChecks: 0 };
    const type = getNamedType(definition.type);
    // Introspection reads only the schema: it costs nothing, but its depth and aliases count like any other.
    const declared = name.startsWith('__') ? NO_DECLARED_COST : model.field(parentType, name);
    const size = returnsList(definition) ? listSize(field, declared, sized.get(name), variables) : 1;
    const children = field.selectionSet
      ? measureSelections(field.selectionSet, type, childSizes(field, declared, variables))
      : NOTHING;
    const perItem = isLeafType(type) ? 0 : itemWeight(field, type) + children.cost;
    return {
      // An `ofType` chain ends at the schema's list and non-null wrappers, however deep a client writes it (GraphiQL's runs nine).
      depth: (name === 'ofType' && parentType.name === '__Type' ? 0 : 1) + children.depth,
      aliases: aliased + children.aliases,
      cost: declared.weight + size * perItem,
      passwordChecks: (PASSWORD_FIELDS.has(`${parentType.name}.${name}`) ? 1 : 0) + children.passwordChecks,
    };
  }

  /**
   * What each object a field returns costs: its type's weight, or for an interface or union the heaviest of the types
   * it may be, of those its `id` or `ids` argument names when it has one (`node(id:)` of a notification, 21).
   */
  function itemWeight(field: FieldNode, type: GraphQLNamedType): number {
    if (!isAbstractType(type)) return model.typeWeight(type);
    const ids = idsGiven(field, variables);
    // Each type once: a client's list of ids may be far longer than a page.
    const names = new Set(ids ? ids.map(nodeTypeName) : schema.getPossibleTypes(type).map((possible) => possible.name));
    let weight = model.typeWeight(type);
    for (const name of names) {
      const found = name === null ? undefined : schema.getType(name);
      if (found) weight = Math.max(weight, model.typeWeight(found));
    }
    return weight;
  }

  return measureSelections(operation.selectionSet, schema.getRootType(operation.operation), UNSIZED);
}

/** The ids a field's `id` or `ids` argument gives, written in the document or as variables; null without one. */
function idsGiven(field: FieldNode, variables: Record<string, unknown>): string[] | null {
  const argument = field.arguments?.find((given) => given.name.value === 'id' || given.name.value === 'ids');
  if (!argument) return null;
  const value = valueFromASTUntyped(argument.value, variables);
  return (Array.isArray(value) ? value : [value]).filter((id): id is string => typeof id === 'string');
}

const NO_DECLARED_COST: FieldCost = { weight: 0, listSize: null };

/** The definition of an object's or an interface's field, introspection's root fields included. */
function fieldDefinition(
  parentType: GraphQLNamedType | undefined | null,
  name: string,
): GraphQLField<unknown, unknown> | undefined {
  if (name === '__schema') return SchemaMetaFieldDef;
  if (name === '__type') return TypeMetaFieldDef;
  return isObjectType(parentType) || isInterfaceType(parentType) ? parentType.getFields()[name] : undefined;
}

/**
 * The size of a list field: the largest slicing argument given (a list argument counts its
 * items), else what the parent's sizedFields give it, else its `assumedSize`. Slicing values are
 * clamped to 1-100: resolvers refuse anything else with BAD_USER_INPUT, the clearer answer.
 */
function listSize(
  field: FieldNode,
  declared: FieldCost,
  fromParent: number | undefined,
  variables: Record<string, unknown>,
): number {
  const sliced = slice(field, declared, variables);
  if (sliced !== null) return sliced;
  return fromParent ?? declared.listSize?.assumedSize ?? 1;
}

/** The largest slicing argument given, clamped to a page; null when none is given (or given as null). */
function slice(field: FieldNode, declared: FieldCost, variables: Record<string, unknown>): number | null {
  const sizes: number[] = [];
  for (const name of declared.listSize?.slicingArguments ?? []) {
    const value = valueOf(field.arguments?.find((a) => a.name.value === name)?.value, variables);
    if (typeof value === 'number') sizes.push(value);
    else if (Array.isArray(value)) sizes.push(value.length);
  }
  return sizes.length > 0 ? Math.min(Math.max(Math.max(...sizes), 1), LIMITS.pageSizeMax) : null;
}

/** The sizes a field with `sizedFields` gives its children: its slice, or its assumed size. */
function childSizes(field: FieldNode, declared: FieldCost, variables: Record<string, unknown>): SizedFields {
  const listSize = declared.listSize;
  if (!listSize || listSize.sizedFields.length === 0) return UNSIZED;
  const size = slice(field, declared, variables) ?? listSize.assumedSize ?? 1;
  return new Map(listSize.sizedFields.map((name) => [name, size]));
}

function valueOf(node: ValueNode | undefined, variables: Record<string, unknown>): unknown {
  if (!node) return undefined;
  switch (node.kind) {
    case Kind.INT:
      return Number(node.value);
    case Kind.LIST:
      return node.values;
    case Kind.VARIABLE:
      return variables[node.name.value];
    case Kind.BOOLEAN:
      return node.value;
    case Kind.NULL:
      return null;
    default:
      return undefined;
  }
}
