import {
  type ConstDirectiveNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  Kind,
  getNamedType,
  getNullableType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  valueFromASTUntyped,
} from 'graphql';

/**
 * What the schema declares a field costs, read from the IBM GraphQL Cost Specification's
 * directives in schema.graphql: `@cost(weight:)` on fields and types, `@listSize` on list fields.
 */
export interface FieldCost {
  /** What running the field once costs beyond the objects it returns: its own store requests. */
  weight: number;
  listSize: ListSize | null;
}

export interface ListSize {
  assumedSize: number | null;
  slicingArguments: string[];
  sizedFields: string[];
}

export interface CostModel {
  field(parent: GraphQLNamedType, name: string): FieldCost;
  /** What each object of the type costs wherever a field returns it: 1 (a key of a batched read) unless declared. */
  typeWeight(type: GraphQLNamedType): number;
}

const NO_COST: FieldCost = { weight: 0, listSize: null };

function directive(
  directives: readonly ConstDirectiveNode[] | undefined,
  name: string,
): Record<string, unknown> | null {
  const found = directives?.find((d) => d.name.value === name);
  if (!found) return null;
  return Object.fromEntries(
    (found.arguments ?? []).map((argument) => [argument.name.value, valueFromASTUntyped(argument.value)]),
  );
}

/** The field's declared `@cost` and `@listSize`, null where it declares none. */
export function declaredCost(field: GraphQLField<unknown, unknown>): {
  cost: number | null;
  listSize: ListSize | null;
} {
  const cost = directive(field.astNode?.directives, 'cost');
  const size = directive(field.astNode?.directives, 'listSize');
  return {
    cost: cost ? Number(cost.weight) : null,
    listSize: size
      ? {
          assumedSize: typeof size.assumedSize === 'number' ? size.assumedSize : null,
          slicingArguments: (size.slicingArguments as string[] | undefined) ?? [],
          sizedFields: (size.sizedFields as string[] | undefined) ?? [],
        }
      : null,
  };
}

/** Whether the field returns a list (of anything), under its non-null wrapper. */
export function returnsList(field: GraphQLField<unknown, unknown>): boolean {
  return isListType(getNullableType(field.type));
}

const models = new WeakMap<GraphQLSchema, CostModel>();

/** The schema's cost model, read once per schema. */
export function costModel(schema: GraphQLSchema): CostModel {
  const known = models.get(schema);
  if (known) return known;
  const fields = new Map<GraphQLNamedType, Map<string, FieldCost>>();
  const types = new Map<GraphQLNamedType, number>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    const declared = directive(
      type.astNode?.kind === Kind.OBJECT_TYPE_DEFINITION || type.astNode?.kind === Kind.INTERFACE_TYPE_DEFINITION
        ? type.astNode.directives
        : undefined,
      'cost',
    );
    types.set(type, declared ? Number(declared.weight) : isCompositeType(type) ? 1 : 0);
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    const costs = new Map<string, FieldCost>();
    for (const field of Object.values(type.getFields())) {
      const { cost, listSize } = declaredCost(field);
      costs.set(field.name, { weight: cost ?? 0, listSize });
    }
    fields.set(type, costs);
  }
  const model: CostModel = {
    field: (parent, name) => fields.get(parent)?.get(name) ?? NO_COST,
    typeWeight: (type) => types.get(getNamedType(type)) ?? 0,
  };
  models.set(schema, model);
  return model;
}
