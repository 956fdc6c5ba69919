// Fetches a theme's https logo once, when the theme is saved, so the checkout can serve its own
// copy. The same guard as webhooks: the host must resolve to public addresses only (unless the
// operator allows private ones) and the socket goes to the vetted address; no redirects, 5 s,
// at most 64 KB, and the bytes must be an image whatever the Content-Type says.
import http from "node:http";
import https from "node:https";
import { AppError } from "../domain/errors.ts";
import { checkLogoBytes, type LogoImage, MAX_LOGO_BYTES } from "../domain/themes/logo.ts";
import { OutboundTargetRefused, type VettedAddress, vetOutboundHost } from "../net/outbound-guard.ts";
import { pinnedLookup } from "../webhooks/send.ts";

const DOWNLOAD_TIMEOUT_MS = 5_000;

export async function downloadLogo(url: string, options: { allowPrivate: boolean; timeoutMs?: number }): Promise<LogoImage> {
  const target = new URL(url);
  const shown = JSON.stringify(url.length > 120 ? `${url.slice(0, 120)}…` : url);
  const refuse = (why: string) => new AppError("UnsupportedValue", `logoUrl ${shown} could not be downloaded: ${why}.`);
  let vetted: VettedAddress | undefined;
  if (!options.allowPrivate) {
    try {
      vetted = await vetOutboundHost(target.hostname);
    } catch (error) {
      if (error instanceof OutboundTargetRefused) throw refuse(error.message.split(";")[0]!);
      throw error;
    }
  }
  const bytes = await new Promise<Buffer>((resolve, reject) => {
    const transport = target.protocol === "https:" ? https : http;
    const request = transport.get(
      target,
      {
        agent: false,
        headers: { accept: "image/png,image/jpeg,image/gif,image/webp", "user-agent": "Paylink logo fetcher" },
        ...(vetted ? { lookup: pinnedLookup(vetted) } : {}),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          response.destroy();
          reject(
            refuse(
              status >= 300 && status < 400
                ? `the server answered ${status} (redirects are not followed; give the image's final URL)`
                : `the server answered ${status}`,
            ),
          );
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_LOGO_BYTES) {
            response.destroy();
            reject(new AppError("TooLong", `logoUrl ${shown} is too large: at most ${MAX_LOGO_BYTES / 1024} KB.`));
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () => resolve(Buffer.concat(chunks)));
        // A body cut short (deadline, reset) ends in "close" without "end"; a settled promise ignores it.
        response.on("error", () => {});
        response.on("close", () => {
          if (!response.complete) reject(refuse("the answer did not arrive in full within the time limit"));
        });
      },
    );
    // One deadline for the whole exchange: a server that drips bytes cannot hold the request open.
    const timer = setTimeout(() => request.destroy(new Error("timeout")), options.timeoutMs ?? DOWNLOAD_TIMEOUT_MS);
    request.on("close", () => clearTimeout(timer));
    request.on("error", (error: NodeJS.ErrnoException) => {
      reject(
        refuse(
          error.message === "timeout"
            ? `no answer within ${(options.timeoutMs ?? DOWNLOAD_TIMEOUT_MS) / 1000} s`
            : (error.code ?? "network error"),
        ),
      );
    });
  });
  return checkLogoBytes(bytes, shown);
}
