/**
 * The signed-in session, shared by every panel: the client (null when signed out)
 * and the token as the service describes it (its scopes decide what is offered).
 */
import type { Session, Studio } from './api.js';

export const signedIn: { api: Studio | null; session: Session | null } = { api: null, session: null };

/** Whether the signed-in token has this scope. */
export function can(scope: Session['scopes'][number]): boolean {
  return signedIn.session?.scopes.includes(scope) ?? false;
}
