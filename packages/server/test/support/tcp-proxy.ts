// A TCP proxy between Paylink and PostgreSQL that a test controls, to make the database go away
// without touching the PostgreSQL server every test on the machine shares: `dropConnections()`
// kills every connection (like pg_terminate_backend, or a network blip), `refuse()` closes the
// listener so new connections are refused (like a database that is down), `accept()` listens
// again on the same port.
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";

export interface TcpProxy {
  port: number;
  /** The URL with its host and port replaced by the proxy's. */
  urlThrough(databaseUrl: string): string;
  /** Connections open now (each client side counts once). */
  readonly connections: number;
  dropConnections(): void;
  refuse(): Promise<void>;
  accept(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((client) => {
        const upstream = tcpConnect(target.port, target.host);
        open.add(client);
        open.add(upstream);
        const end = () => {
          client.destroy();
          upstream.destroy();
          open.delete(client);
          open.delete(upstream);
        };
        client.on("error", end).on("close", end);
        upstream.on("error", end).on("close", end);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      next.once("error", reject);
      next.listen(port, "127.0.0.1", () => {
        const address = next.address();
        port = typeof address === "object" && address ? address.port : port;
        server = next;
        resolve();
      });
    });

  const dropConnections = () => {
    for (const socket of open) socket.destroy();
    open.clear();
  };
  const refuse = async () => {
    const closing = server;
    server = undefined;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    urlThrough(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    get connections() {
      return [...open].filter((socket) => socket.remotePort !== target.port).length;
    },
    dropConnections,
    async refuse() {
      const closed = refuse();
      dropConnections();
      await closed;
    },
    async accept() {
      if (!server) await listen();
    },
    async close() {
      const closed = refuse();
      dropConnections();
      await closed;
    },
  };
}

/** Host and port of a postgres:// URL. */
export function databaseAddress(databaseUrl: string): { host: string; port: number } {
  const url = new URL(databaseUrl);
  return { host: url.hostname || "127.0.0.1", port: Number(url.port || 5432) };
}
