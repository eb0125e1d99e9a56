import { GraphQLScalarType, Kind } from 'graphql';
import { nodeTypeName } from '../node-types.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { connections } from './connections.js';
import { graph } from './graph.js';
import { Mutation } from './mutation.js';
import { withoutBudget } from '../../observability/cost.js';
import { Notification } from './notification.js';
import { Comment, Post, PostEdge } from './post.js';
import { Query } from './query.js';
import { Subscription } from './subscription.js';
import { User } from './user.js';

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))$/;

/** Date.parse rolls an impossible date or time over (February 31 is March 3): every part must be in its range. */
function isCalendarDateTime(value: string): boolean {
  const parts = ISO_DATE_TIME.exec(value);
  if (!parts) return false;
  const part = (i: number) => Number(parts[i]);
  const [year, month, day] = [part(1), part(2), part(3)];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  const offsetInRange = parts[8] === 'Z' || (part(9) <= 23 && part(10) <= 59);
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    part(4) <= 23 &&
    part(5) <= 59 &&
    part(6) <= 59 &&
    offsetInRange
  );
}

function parseDateTime(value: unknown): string {
  if (typeof value !== 'string' || !isCalendarDateTime(value) || Number.isNaN(Date.parse(value))) {
    throw new TypeError('DateTime must be an ISO-8601 date and time');
  }
  return new Date(value).toISOString();
}

const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  // The schema is built with this scalar's own config, which replaces the SDL's description; the two
  // are kept equal (test/api/schema.test.ts compares the served schema with schema.graphql).
  description: 'An ISO-8601 date and time in UTC, e.g. 2026-11-21T12:00:00.000Z.',
  specifiedByURL: 'https://scalars.graphql.org/andimarek/date-time',
  serialize: (value) => (value instanceof Date ? value.toISOString() : parseDateTime(value)),
  parseValue: parseDateTime,
  parseLiteral: (ast) => (ast.kind === Kind.STRING ? parseDateTime(ast.value) : parseDateTime(null)),
});

/**
 * A mutation's own work is never stopped half-way by the store-request budget (a write between its
 * reads, a check after its write): its declared cost bounds it. What its payload selects is budgeted.
 */
function unbudgeted<R extends object>(fields: R): R {
  return Object.fromEntries(
    Object.entries(fields).map(([name, resolve]) => [
      name,
      (...args: unknown[]) => withoutBudget(() => (resolve as (...a: unknown[]) => unknown)(...args)),
    ]),
  ) as R;
}

export const resolvers: Resolvers = {
  DateTime,
  Query,
  Mutation: unbudgeted(Mutation),
  Subscription,
  User,
  Post,
  PostEdge,
  Comment,
  Notification,
  ...connections,
  ...graph,
  Node: {
    __resolveType: (node) => {
      if (!('id' in node)) return 'Notification';
      return nodeTypeName(node.id);
    },
  },
};
