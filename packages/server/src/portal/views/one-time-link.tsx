/** @jsxRuntime automatic @jsxImportSource preact */
// What the pages of the e-mailed one-time links (accepting an invitation, a password reset) share:
// the page saying why a link cannot be used, and the new-password field with the portal's rule.
import type { FastifyReply, FastifyRequest } from "fastify";
import { MIN_PASSWORD_LENGTH } from "../../services/change-password.ts";
import { frameOf, sendPortalPage } from "../render.tsx";
import { Layout } from "./layout.tsx";

/** 404 for a link that never existed, 410 for one used, expired or revoked. */
export function sendLinkGonePage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: { state: string; title: string; text: string; next: { href: string; label: string } },
) {
  return sendPortalPage(reply, page.state === "unknown" ? 404 : 410, (nonce) => (
    <Layout {...frameOf(request, nonce)} title={page.title}>
      <div class="card narrow" data-link-gone={page.state}>
        <h1>{page.title}</h1>
        <p>{page.text}</p>
        <a class="button secondary" href={page.next.href}>
          {page.next.label}
        </a>
      </div>
    </Layout>
  ));
}

export function NewPasswordField(props: { label: string; hint: string }) {
  return (
    <div class="field">
      <label for="password">
        {props.label}
        <span class="hint" id="password-hint">
          {props.hint}
        </span>
      </label>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="new-password"
        minlength={MIN_PASSWORD_LENGTH}
        aria-describedby="password-hint"
        required
      />
    </div>
  );
}
