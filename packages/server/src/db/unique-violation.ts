/** True when PostgreSQL refused a row because a unique constraint already holds its value (SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "23505";
}
