import type { Relation } from '../../stores/graph/graph-store.js';
import { blocksBetween } from '../relationships.js';
import type { Hydrator } from './pipeline.js';

/** The relations that decide whether the viewer sees the content of each of `userIds`: the blocks both ways, and the viewer's mutes when `hidesMuted`. */
export function visibilityRelations(viewerId: string, userIds: readonly string[], hidesMuted: boolean): Relation[] {
  const others = [...new Set(userIds)].filter((id) => id !== viewerId);
  return [
    ...blocksBetween(viewerId, others),
    ...(hidesMuted ? others.map((id) => ({ kind: 'mutes' as const, from: viewerId, to: id })) : []),
  ];
}

/** Of `userIds`, those whose content `viewerId` does not see: one batched lookup, which hydration has usually made already (then it is cached). */
export async function hiddenUsers(
  viewerId: string | null,
  userIds: readonly string[],
  hidesMuted: boolean,
  hydrator: Hydrator,
): Promise<Set<string>> {
  if (viewerId === null) return new Set();
  const relations = visibilityRelations(viewerId, userIds, hidesMuted);
  if (relations.length === 0) return new Set();
  const found = await hydrator.relations(relations);
  return new Set(relations.filter((_, i) => found[i]).map((r) => (r.from === viewerId ? r.to : r.from)));
}
