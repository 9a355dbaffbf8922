/**
 * Which user holds which email, without regard to case: lower-cased email
 * to user id, built by scanning the store at start and kept in step by the
 * user routes. Checked and updated in the same tick as the commit, so two
 * requests racing for one email cannot both win.
 */
import type { RecordStore } from '../../docstore/types.js';

/** The key an email is indexed under. */
export function emailKey(email: string): string {
  return email.toLowerCase();
}

/** Lower-cased email to user id. */
export class EmailIndex {
  private readonly ids = new Map<string, number>();

  /** Indexes every user in `store` (one scan). */
  static build(store: RecordStore): EmailIndex {
    const index = new EmailIndex();
    for (const [id, user] of store.scan('users')) {
      if (typeof user.email === 'string') index.set(user.email, id);
    }
    return index;
  }

  /** The id of the user with `email` (any case), or undefined. */
  owner(email: string): number | undefined {
    return this.ids.get(emailKey(email));
  }

  set(email: string, id: number): void {
    this.ids.set(emailKey(email), id);
  }

  delete(email: string): void {
    this.ids.delete(emailKey(email));
  }
}
