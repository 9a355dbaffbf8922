/** Finding the discussion a /discussions/:id... path names. */
import type { RecordStore, RecordValue } from '../../docstore/types.js';
import { parseId } from '../ids.js';
import { missing } from './common.js';

/** The suffix every discussions route also answers with. */
export const DISCUSSION_SUFFIXES = ['.json'] as const;

/** The discussion named by the path parameter: its id and value. Throws 400 for a bad id, 404 when there is none. */
export function discussionOf(store: RecordStore, param: string): { id: number; discussion: RecordValue } {
  const id = parseId(param);
  const discussion = store.get('discussions', id);
  if (discussion === undefined) throw missing('discussion', id);
  return { id, discussion };
}
