// The one place that tells "the database cannot be reached right now" apart from every other
// failure (docs/operations.md#when-the-database-goes-away). Such a failure says nothing about the
// request: the client may retry it later, so it is answered 503 with Retry-After, not 500.
// Everything else (a bug, a constraint, a closed pool at shutdown) stays an internal error.

/** Node's socket errors: the server is down, restarting, unreachable or dropped the connection. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "EAI_AGAIN",
  "ENOTFOUND",
  // The embedded database's files cannot be read or written (a full, read-only or failing disk).
  "EIO",
  "ENOSPC",
  "EROFS",
  "EACCES",
]);

/**
 * PostgreSQL SQLSTATEs of a server that is going away or not taking connections: 57P01 admin
 * shutdown (pg_terminate_backend, a fast shutdown), 57P02 crash shutdown, 57P03 cannot connect
 * now (starting up or in recovery), 53300 too many connections, 55000 a database that is not
 * accepting connections (ALTER DATABASE … ALLOW_CONNECTIONS false), 57014 a statement cancelled by
 * statement_timeout, 53100 a full disk; and classes 08, connection exceptions, and 58, errors of the
 * system beneath the server (58030 an I/O error, 58P01 a file that is gone).
 */
const SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300", "53100", "55000", "57014"]);
const SQLSTATE_CLASSES = /^(08|58)[0-9A-Z]{3}$/;

/**
 * The server's own files cannot be opened, read or written: PostgreSQL reports it with the code of
 * the operating system's error, which for a permission or a wrong kind of file is a code SQL
 * errors share (42501, 42809), or, for some errors of the embedded database's file layer, XX000.
 * Its text tells it apart: Paylink runs no statement that reads a file of its own choosing.
 */
const FILE_ACCESS = [/^could not [a-z ]+ (file|directory) "/, /^could not access status of transaction /];

/**
 * pg and pg-pool raise these as plain Errors without a code: a socket that ended under a query,
 * a client that had already failed, and the pool's connect timeout (connectionTimeoutMillis).
 */
const MESSAGES = [
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
];

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 4) return false;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === "string" && (SOCKET_CODES.has(code) || SQLSTATES.has(code) || SQLSTATE_CLASSES.test(code))) return true;
  if (
    typeof code === "string" &&
    /^[0-9A-Z]{5}$/.test(code) &&
    typeof message === "string" &&
    FILE_ACCESS.some((pattern) => pattern.test(message))
  ) {
    return true;
  }
  if (typeof message === "string" && MESSAGES.some((pattern) => pattern.test(message))) return true;
  // Node wraps a connect that tried several addresses (localhost: ::1 and 127.0.0.1) in an AggregateError.
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return cause !== undefined && isDatabaseUnavailable(cause, depth + 1);
}

/** Seconds a client is asked to wait before retrying while the database is away. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
