/**
 * Mentions: `@handle` in a post's or a comment's text. A handle is 3-30 characters of a-z, 0-9
 * and _ (compared in lower case), not preceded by a character that could belong to a word or
 * an address (`me@example` is no mention) and not followed by one (`@abcdefghij…` longer than a
 * handle is none either).
 */
const MENTION = /(?<![A-Za-z0-9_@.])@([A-Za-z0-9_]{3,30})(?![A-Za-z0-9_])/g;

/** Handles looked up per text at most: a 500-character text holds at most about a hundred. */
export const MAX_MENTIONS = 20;

/** The handles mentioned in `text`, lower case, in order of first mention, without repeats, at most MAX_MENTIONS. */
export function mentionedHandles(text: string): string[] {
  const handles = new Set<string>();
  for (const match of text.matchAll(MENTION)) {
    handles.add(match[1]!.toLowerCase());
    if (handles.size === MAX_MENTIONS) break;
  }
  return [...handles];
}
