// The HTTP side of a processor's local fake (adyen-fake.ts, stripe-fake.ts): a server on 127.0.0.1
// that reads each request's body whole and hands it to the fake, with a way to answer that can lose
// the next answer on purpose (the request is carried out, the connection dropped before the answer).
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** Answers the request; with a path set to lose, drops the connection instead. */
export type Send = (status: number, type: string, text: string, headers?: Record<string, string>) => void;

export interface FakeServer {
  /** `http://127.0.0.1:{port}`. */
  origin: string;
  /** The next request whose path matches is carried out, but its answer never reaches the caller. */
  loseNextAnswer(path: RegExp): void;
  close(): Promise<void>;
}

export async function startFakeServer(handle: (request: IncomingMessage, url: URL, body: string, send: Send) => void): Promise<FakeServer> {
  let losing: RegExp | undefined;
  let origin = "";
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", origin);
      const send: Send = (status, type, text, headers = {}) => {
        if (losing?.test(url.pathname)) {
          losing = undefined;
          request.socket.destroy();
          return;
        }
        response.writeHead(status, { "content-type": type, ...headers });
        response.end(text);
      };
      handle(request, url, Buffer.concat(chunks).toString("utf8"), send);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    loseNextAnswer(path) {
      losing = path;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
