// Receivers that misbehave, for the fairness and breaker tests: an HTTP server that takes requests
// and never answers them (until told to), and a TCP port whose handshakes never complete.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { Worker } from "node:worker_threads";

export interface HangingRequest {
  webhookId: string;
  headers: IncomingHttpHeaders;
  /** Date.now() when the body had arrived. */
  receivedAt: number;
  /** The request arrived while the receiver answered (200), not while it hung. */
  answered: boolean;
}

export interface HangingReceiver {
  url: string;
  requests: HangingRequest[];
  /** Requests whose body arrived and that are neither answered nor closed by the sender, now. */
  readonly open: number;
  /** The most such requests at any one time since the last resetPeak(). */
  readonly peak: number;
  resetPeak(): void;
  /** From now on every request is answered 200 at once (the receiver recovered). */
  recover(): void;
  /** Answers 200 to every request it is holding now (they stay counted as unanswered in `requests`). */
  answerHeld(): void;
  close(): Promise<void>;
}

/**
 * Accepts connections and reads each request, then says nothing: the sender's time-out is the only
 * way out, as with a receiver whose application hangs. After recover() it answers 200.
 */
export async function startHangingReceiver(): Promise<HangingReceiver> {
  const requests: HangingRequest[] = [];
  const sockets = new Set<Socket>();
  let answering = false;
  let open = 0;
  let peak = 0;
  const held = new Set<ServerResponse>();
  const server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push({ webhookId: String(req.headers["webhook-id"]), headers: req.headers, receivedAt: Date.now(), answered: answering });
      if (answering) {
        res.writeHead(200).end("ok");
        return;
      }
      open += 1;
      peak = Math.max(peak, open);
      held.add(res);
      res.once("close", () => {
        open -= 1;
        held.delete(res);
      });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks/hanging`,
    requests,
    get open() {
      return open;
    },
    get peak() {
      return peak;
    },
    resetPeak() {
      peak = open;
    },
    recover() {
      answering = true;
    },
    answerHeld() {
      for (const res of held) res.writeHead(200).end("ok");
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A port on 127.0.0.1 where a connection attempt hangs in the TCP handshake, as with a firewall
 * that drops packets. The listening socket lives in a worker thread that is blocked, so nobody
 * accepts; once its small backlog is full (filled here), the kernel drops further SYNs.
 */
export async function startUnacceptingPort(): Promise<{ port: number; close(): Promise<void> }> {
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { workerData, parentPort } = require("node:worker_threads");
     const server = require("node:net").createServer();
     server.listen({ port: 0, host: "127.0.0.1", backlog: 1 }, () => {
       parentPort.postMessage(server.address().port);
       setImmediate(() => Atomics.wait(workerData, 0, 0));
     });`,
    { eval: true, workerData: gate },
  );
  const port = await new Promise<number>((resolve) => worker.once("message", resolve));
  const fillers: Socket[] = [];
  // Connect until one attempt stays pending: the backlog is full from then on.
  for (let i = 0; i < 8; i++) {
    const socket = connect(port, "127.0.0.1");
    fillers.push(socket);
    const connected = await new Promise<boolean>((resolve) => {
      socket.once("connect", () => resolve(true));
      socket.once("error", () => resolve(false));
      setTimeout(() => resolve(false), 300);
    });
    if (!connected) break;
  }
  return {
    port,
    close: async () => {
      for (const socket of fillers) socket.destroy();
      Atomics.store(gate, 0, 1);
      Atomics.notify(gate, 0);
      await worker.terminate();
    },
  };
}
