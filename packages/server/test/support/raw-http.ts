// Requests whose bytes on the wire are exactly the ones a fuzz suite generated. fetch would
// normalise dot segments, re-encode the URL and refuse some headers, so these go through node:http
// (path and body as given) or, for request lines node:http will not write, a raw socket.
import http from "node:http";
import net from "node:net";
import { IN_FLIGHT } from "./fuzz.ts";
import type { ApiResponse } from "./harness.ts";

export interface Reply extends ApiResponse {
  text: string;
}

/** Kept alive across a suite's requests; `closeRawAgent` in the suite's `after`. */
const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT * 2 });

export function closeRawAgent(): void {
  agent.destroy();
}

function toHeaders(raw: http.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw))
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  return headers;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function send(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: Buffer; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let settled = false;
    const request = http.request({ host: hostname, port, method, path, headers: options.headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", (error) => {
        if (!settled) {
          settled = true;
          reject(error);
        }
      });
      response.on("end", () => {
        settled = true;
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: response.statusCode ?? 0, headers: toHeaders(response.headers), body: parseBody(text), text });
      });
    });
    request.setTimeout(20_000, () => request.destroy(new Error("no answer within 20 s")));
    request.on("error", (error) => {
      if (!settled) {
        settled = true;
        reject(error);
      }
    });
    request.end(options.body);
  });
}

/** A JSON request to the admin API with the server's admin token. */
export function sendAdminJson(
  server: { baseUrl: string; adminToken: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${server.adminToken}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  return send(server.baseUrl, method, path, { headers, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body), "utf8") });
}

/** One request written byte for byte on a fresh socket (Connection: close); the answer parsed by hand. */
export function sendRaw(baseUrl: string, requestBytes: Buffer): Promise<Reply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.setTimeout(20_000, () => socket.destroy(new Error("no answer within 20 s")));
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", (error) => (chunks.length > 0 ? finish() : reject(error)));
    socket.on("end", () => finish());
    socket.on("close", () => finish());
    socket.write(requestBytes);
    let done = false;
    function finish() {
      if (done) return;
      done = true;
      const all = Buffer.concat(chunks);
      const split = all.indexOf("\r\n\r\n");
      const head = (split === -1 ? all : all.subarray(0, split)).toString("latin1");
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      if (!status) return reject(new Error(`no HTTP answer: ${JSON.stringify(head.slice(0, 100))}`));
      const headers = new Headers();
      for (const line of head.split("\r\n").slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      let body: Buffer = split === -1 ? Buffer.alloc(0) : all.subarray(split + 4);
      if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) body = dechunk(body);
      const text = body.toString("utf8");
      resolve({ status: Number(status[1]), headers, body: parseBody(text), text });
    }
  });
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const eol = body.indexOf("\r\n", at);
    if (eol === -1) break;
    const size = parseInt(body.subarray(at, eol).toString("latin1"), 16);
    if (!size) break;
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
