// A portal user's browser without a browser: a cookie jar, and forms posted with the hidden fields
// (the CSRF token among them) of the page they were read from, as a browser would.
import { createPortalUser } from "../../src/db/merchants-repository.ts";
import type { Role } from "../../src/domain/portal/roles.ts";
import { hashPassword } from "../../src/security/passwords.ts";
import type { MerchantFixture, TestServer } from "./harness.ts";
import { hiddenInputs, textOf } from "./shopper.ts";

export interface PortalPage {
  status: number;
  headers: Headers;
  html: string;
  /** Visible text, for assertions that should not depend on markup. */
  text: string;
  /** Where a redirect points (relative), or null. */
  location: string | null;
}

/** The href of a portal page's pager link ("Previous" or "Next"), as a browser would follow it. */
export function pagerLink(html: string, word: "Previous" | "Next"): string | undefined {
  const pager = /<nav class="pager"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? "";
  return new RegExp(`<a href="([^"]*)">${word}</a>`).exec(pager)?.[1]?.replaceAll("&amp;", "&");
}

export const PORTAL_PASSWORD = "correct horse battery staple";

/** A portal user of the merchant, with a known password. */
export async function addPortalUser(
  server: Pick<TestServer, "db">,
  merchant: Pick<MerchantFixture, "merchantId">,
  email: string,
  role: Role = "owner",
) {
  const { userId } = await createPortalUser(server.db, merchant.merchantId, email, await hashPassword(PORTAL_PASSWORD), role);
  return { email, password: PORTAL_PASSWORD, userId };
}

export class PortalClient {
  readonly cookies = new Map<string, string>();
  constructor(
    readonly baseUrl: string,
    readonly headers: Record<string, string> = {},
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  async request(method: string, path: string, form?: Record<string, string | string[]>): Promise<PortalPage> {
    const body = form === undefined ? undefined : encodeForm(form);
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      redirect: "manual",
      headers: {
        ...this.headers,
        ...(this.cookies.size > 0 ? { cookie: this.cookieHeader() } : {}),
        ...(body !== undefined ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body,
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const index = pair!.indexOf("=");
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (value === "" || /Max-Age=0/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const html = await response.text();
    return { status: response.status, headers: response.headers, html, text: textOf(html), location: response.headers.get("location") };
  }

  get(path: string): Promise<PortalPage> {
    return this.request("GET", path);
  }

  /** Posts a form with the hidden fields of `page` (the CSRF token among them) plus `fields`. */
  post(path: string, fields: Record<string, string | string[]>, page?: PortalPage): Promise<PortalPage> {
    return this.request("POST", path, { ...(page ? hiddenInputs(formHtml(page.html, path)) : {}), ...fields });
  }

  async signIn(email: string, password: string): Promise<PortalPage> {
    const page = await this.get("/portal/sign-in");
    return this.post("/portal/sign-in", { email, password }, page);
  }

  /** The session's CSRF token, as every signed-in page carries it. */
  async csrf(): Promise<string> {
    const page = await this.get("/portal/overview");
    const token = /name="csrf" value="([^"]+)"/.exec(page.html)?.[1];
    if (!token) throw new Error(`no CSRF token on the overview (status ${page.status})`);
    return token;
  }
}

/** The HTML of the form posting to `action` (a GET form with that address is no such form), or the whole page when there is none. */
function formHtml(html: string, action: string): string {
  const start = html.indexOf(`<form method="post" action="${action}"`);
  if (start < 0) return html;
  const end = html.indexOf("</form>", start);
  return html.slice(start, end < 0 ? undefined : end);
}

function encodeForm(form: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) {
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, one);
  }
  return params.toString();
}

/** A signed-in client of a new portal user of the server's merchant (or another merchant). */
export async function signedIn(
  server: TestServer,
  merchant: MerchantFixture = server,
  email?: string,
  role: Role = "owner",
): Promise<PortalClient> {
  const user = await addPortalUser(server, merchant, email ?? `user-${merchant.merchantId.slice(4, 12).toLowerCase()}@example.com`, role);
  const client = new PortalClient(server.baseUrl);
  const signedIn = await client.signIn(user.email, user.password);
  if (signedIn.status !== 303) throw new Error(`sign-in failed: ${signedIn.status} ${signedIn.text.slice(0, 200)}`);
  return client;
}
