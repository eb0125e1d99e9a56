/**
 * Mentions: `@handle` of 3-30 characters of a-z, 0-9 and _, not inside a word or an address (`me@example`)
 * and not followed by a handle character.
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
