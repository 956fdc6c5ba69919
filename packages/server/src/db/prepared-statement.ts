// Which SQL texts run as named prepared statements. db/prepared.ts declares them; both databases'
// connections (the pool in connect.ts, the serialized PGlite dialect) look a query's text up here
// and run it by its name, so a repository runs a named statement the way it runs any other query.
// Kept apart from prepared.ts so the dialects need nothing from connect.ts.

const namesByText = new Map<string, string>();

/** Marks a text as a named statement; one name per text. */
export function nameStatement(text: string, name: string): void {
  const known = namesByText.get(text);
  if (known !== undefined && known !== name) throw new Error(`statement ${name} has the text of ${known}`);
  namesByText.set(text, name);
}

/** The name a query's text runs under, or undefined for an ordinary (unnamed) statement. */
export function statementName(text: string): string | undefined {
  return namesByText.get(text);
}
