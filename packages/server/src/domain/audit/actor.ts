// Who made a change, for the audit log (docs/portal.md#audit-log). Routes build one from what
// authenticated the request (the portal's session, the API key, the admin token) and hand it to
// the use case as a value: a use case never looks "who" up from a global.

/** A merchant's person, a merchant's API key, or the operator (admin API, command line). */
export type Actor =
  | { kind: "user"; userId: string; email: string; address: string | null }
  | { kind: "api-key"; keyId: string; keyPrefix: string; address: string | null }
  | { kind: "operator"; address: string | null };

export function userActor(user: { userId: string; email: string }, address: string | null): Actor {
  return { kind: "user", userId: user.userId, email: user.email, address };
}

export function apiKeyActor(key: { keyId: string; keyPrefix: string }, address: string | null): Actor {
  return { kind: "api-key", keyId: key.keyId, keyPrefix: key.keyPrefix, address };
}

export function operatorActor(address: string | null): Actor {
  return { kind: "operator", address };
}

/** The id stored beside the actor's kind: the user's or the key's id; none for the operator. */
export function actorId(actor: Actor): string | null {
  return actor.kind === "user" ? actor.userId : actor.kind === "api-key" ? actor.keyId : null;
}

/** What a person reads in the log: an e-mail, a key's prefix, or "admin API". */
export function actorLabel(actor: Actor): string {
  return actor.kind === "user" ? actor.email : actor.kind === "api-key" ? actor.keyPrefix : "admin API";
}
