import { idKind } from '../domain/ids.js';

export type NodeTypeName = 'User' | 'Post' | 'Comment' | 'Notification';

/** The type a global id's prefix names (whether or not it names anything): what `node(id:)` resolves and is priced as. */
export function nodeTypeName(id: string): NodeTypeName | null {
  if (id.startsWith('ntf_')) return 'Notification';
  switch (idKind(id)) {
    case 'usr':
      return 'User';
    case 'pst':
      return 'Post';
    case 'cmt':
      return 'Comment';
    default:
      return null;
  }
}
