/**
 * `npm run schema:check` (part of `npm test`): compares `schema.graphql` with the schema of the last
 * release (`schema.released.graphql`) using GraphQL Inspector, prints every change with its
 * criticality, and fails on a breaking change unless it removes what the release had already
 * deprecated (see docs/reference/schema-changes.md).
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { type Change, ChangeType, CriticalityLevel, diff } from '@graphql-inspector/core';
import { type GraphQLSchema, buildSchema, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';

export const RELEASED = 'schema.released.graphql';
export const CURRENT = 'schema.graphql';

/** Whether the release had deprecated what the change removes: a removal announced by a deprecation first. */
function removesDeprecated(change: Change, released: GraphQLSchema): boolean {
  const [typeName, fieldName, argumentName] = (change.path ?? '').split('.');
  const type = typeName ? released.getType(typeName) : undefined;
  switch (change.type) {
    case ChangeType.FieldRemoved:
      return (change.meta as { isRemovedFieldDeprecated: boolean }).isRemovedFieldDeprecated;
    case ChangeType.EnumValueRemoved:
      return (change.meta as { isEnumValueDeprecated: boolean }).isEnumValueDeprecated;
    case ChangeType.InputFieldRemoved:
      return isInputObjectType(type) && type.getFields()[fieldName!]?.deprecationReason != null;
    case ChangeType.FieldArgumentRemoved: {
      const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[fieldName!] : undefined;
      return field?.args.find((argument) => argument.name === argumentName)?.deprecationReason != null;
    }
    default:
      return false;
  }
}

export interface SchemaChanges {
  changes: Change[];
  /** Breaking changes not announced by a deprecation in the release: what fails the check. */
  refused: Change[];
}

export async function schemaChanges(releasedSdl: string, currentSdl: string): Promise<SchemaChanges> {
  const released = buildSchema(releasedSdl);
  const changes = await diff(released, buildSchema(currentSdl));
  const refused = changes.filter(
    (change) => change.criticality.level === CriticalityLevel.Breaking && !removesDeprecated(change, released),
  );
  return { changes, refused };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { changes, refused } = await schemaChanges(readFileSync(RELEASED, 'utf8'), readFileSync(CURRENT, 'utf8'));
  // Costs declared on fields (directive usages) and descriptions change often and break no client: counted, not listed.
  const quiet = (change: Change) => change.type.startsWith('DIRECTIVE_USAGE') || change.type.includes('DESCRIPTION');
  for (const change of changes)
    if (!quiet(change)) console.log(`${change.criticality.level.padEnd(13)} ${change.message}`);
  console.log(`and ${changes.filter(quiet).length} change(s) of descriptions and of @cost or @listSize on fields`);
  if (refused.length > 0) {
    console.error(`\n${refused.length} breaking change(s) since the last release that no deprecation announced:`);
    for (const change of refused) console.error(`  ${change.message}`);
    console.error(
      'Deprecate first (@deprecated(reason: "use …")), release, and remove in a later release: see docs/reference/schema-changes.md.',
    );
    process.exit(1);
  }
  console.log(
    `schema.graphql: ${changes.length} change(s) since the last release, none breaking without a deprecation`,
  );
}
