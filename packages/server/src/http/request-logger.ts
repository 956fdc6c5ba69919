// Each request gets its own logger (bound to its id), but most requests never log: at the usual
// levels a served request writes nothing, or only Fastify's two lines at info. Creating a pino child
// costs a few microseconds per request (its bindings are serialized and redacted up front), a
// measurable part of a request that does little else (/healthz), so the child is made the first
// time the request writes a line at an enabled level, and never otherwise.
import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions, Level, Logger } from "pino";

class LazyRequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
  ) {}

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  private logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings);
    return this.made;
  }

  private write(level: Level, args: unknown[]): void {
    if (this.made === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.logger()[level] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.write("fatal", args);
  }
  error(...args: unknown[]): void {
    this.write("error", args);
  }
  warn(...args: unknown[]): void {
    this.write("warn", args);
  }
  info(...args: unknown[]): void {
    this.write("info", args);
  }
  debug(...args: unknown[]): void {
    this.write("debug", args);
  }
  trace(...args: unknown[]): void {
    this.write("trace", args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}

/**
 * Fastify's childLoggerFactory: a request logger that becomes a pino child only when it writes. A
 * route with a log level of its own (none has one today) gets its child at once, as Fastify would.
 */
export function lazyRequestLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) return parent.child(bindings, options);
  return new LazyRequestLogger(parent as Logger, bindings) as unknown as FastifyBaseLogger;
}
