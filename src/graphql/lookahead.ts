import {
  type FieldNode,
  type FragmentSpreadNode,
  type GraphQLResolveInfo,
  type InlineFragmentNode,
  type SelectionSetNode,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  getArgumentValues,
  getDirectiveValues,
  isObjectType,
} from 'graphql';
import type { PostNeeds } from '../usecases/feeds/post-steps.js';
import type { UserNeeds } from '../usecases/feeds/user-steps.js';

/**
 * What the field's selection asks for, read before its children run, so a list hydrates its whole page at once
 * and a parent starts its children's reads beside its own. What @skip or @include leaves out costs nothing.
 */
export interface SelectionTree {
  /** Field name → what is selected under it. */
  fields: Map<string, SelectionTree>;
  /** The field nodes of this level, for their arguments. */
  nodes: FieldNode[];
}

/** The fields selected under the resolving field, `depth` levels deep. */
export function selectionTree(info: GraphQLResolveInfo, depth: number): SelectionTree {
  const root: SelectionTree = { fields: new Map(), nodes: [...info.fieldNodes] };
  collect(
    info,
    root,
    info.fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : [])),
    depth,
  );
  return root;
}

/** Whether execution will run the selection: neither @skip(if: true) nor @include(if: false), with the request's variables. */
function included(info: GraphQLResolveInfo, selection: FieldNode | FragmentSpreadNode | InlineFragmentNode): boolean {
  if (getDirectiveValues(GraphQLSkipDirective, selection, info.variableValues)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, selection, info.variableValues)?.if !== false;
}

function collect(
  info: GraphQLResolveInfo,
  into: SelectionTree,
  sets: readonly SelectionSetNode[],
  depth: number,
): void {
  if (depth === 0) return;
  // Each fragment is flattened once per level, however often it is spread there.
  const seenFragments = new Set<string>();
  const children = new Map<string, SelectionSetNode[]>();
  const walk = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (!included(info, selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        const child = into.fields.get(name) ?? into.fields.set(name, { fields: new Map(), nodes: [] }).get(name)!;
        child.nodes.push(selection);
        if (selection.selectionSet)
          (children.get(name) ?? children.set(name, []).get(name)!).push(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet);
      } else if (!seenFragments.has(selection.name.value)) {
        seenFragments.add(selection.name.value);
        const fragment = info.fragments[selection.name.value];
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  sets.forEach(walk);
  for (const [name, childSets] of children) collect(info, into.fields.get(name)!, childSets, depth - 1);
}

const has = (tree: SelectionTree | undefined, ...names: string[]) =>
  names.some((name) => tree?.fields.has(name) === true);

/** What each user of a list shows, from the selection of its node. */
export function userNeeds(node: SelectionTree | undefined): UserNeeds {
  return {
    followCounts: has(node, 'followerCount', 'followingCount'),
    viewerFollows: has(node, 'viewerFollows'),
    followsViewer: has(node, 'followsViewer'),
    viewerBlocks: has(node, 'viewerBlocks'),
    blocksViewer: has(node, 'blocksViewer'),
    viewerMutes: has(node, 'viewerMutes'),
  };
}

/** What each post of a connection shows, from the connection field's selection. */
export function postNeeds(info: GraphQLResolveInfo): PostNeeds {
  return edgeNeeds(selectionTree(info, 4).fields.get('edges'));
}

/** What the post of an edge shows, from the edge field's selection (a subscription's event). */
export function postEdgeNeeds(info: GraphQLResolveInfo): PostNeeds {
  return edgeNeeds(selectionTree(info, 3));
}

function edgeNeeds(edges: SelectionTree | undefined): PostNeeds {
  const node = edges?.fields.get('node');
  const author = node?.fields.get('author');
  const repostedBy = edges?.fields.get('repostedBy');
  return {
    // A likedBy or repostedBy connection's totalCount is the post's count.
    counts: has(
      node,
      'likeCount',
      'viewCount',
      'commentCount',
      'repostCount',
      'reactionCounts',
      'likedBy',
      'repostedBy',
    ),
    viewerLiked: has(node, 'viewerHasLiked'),
    viewerReposted: has(node, 'viewerHasReposted'),
    author: author ? userNeeds(author) : null,
    repostedBy: repostedBy ? userNeeds(repostedBy) : null,
  };
}

/** Whether a connection's selection shows its page (`edges` or `pageInfo`), not only its `totalCount`. */
export function showsPage(info: GraphQLResolveInfo): boolean {
  return has(selectionTree(info, 1), 'edges', 'pageInfo');
}

/** What each user of a connection shows, from the connection field's selection. */
export function userListNeeds(info: GraphQLResolveInfo): UserNeeds {
  return userNeeds(selectionTree(info, 3).fields.get('edges')?.fields.get('node'));
}

/**
 * The arguments of every selection of the child field `name` under the resolving field, as
 * execution will coerce them. The resolving field's type must be an object type with that field.
 */
export function childFieldArguments(
  info: GraphQLResolveInfo,
  typeName: string,
  name: string,
): Record<string, unknown>[] {
  const type = info.schema.getType(typeName);
  const field = isObjectType(type) ? type.getFields()[name] : undefined;
  if (!field) return [];
  const nodes = selectionTree(info, 1).fields.get(name)?.nodes ?? [];
  return nodes.map((node) => getArgumentValues(field, node, info.variableValues));
}
