import { mentionedHandles } from '../domain/mentions.js';
import type { UserStore } from '../stores/user-store.js';

/**
 * Resolves @handles to user ids when a text is written, in one batched lookup, so a mention stays with the
 * user whatever handles change to later. Unknown handles stay text.
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
