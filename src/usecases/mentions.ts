import { mentionedHandles } from '../domain/mentions.js';
import type { UserStore } from '../stores/user-store.js';

/**
 * Resolves a text's @handles to user ids when it is written, in one batched lookup: what is
 * stored with the post or comment (its `mentionIds`) is who was mentioned, whatever handles
 * change to later. Unknown handles stay text. The ids are what a notification of a mention
 * needs: the mentioned users, in order of first mention.
 */
export class MentionResolver {
  constructor(private readonly users: Pick<UserStore, 'idsByHandle'>) {}

  async resolve(text: string): Promise<string[]> {
    const handles = mentionedHandles(text);
    if (handles.length === 0) return [];
    const ids = await this.users.idsByHandle(handles, { consistent: true });
    return [...new Set(ids.filter((id): id is string => id !== null))];
  }
}
