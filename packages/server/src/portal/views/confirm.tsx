/** @jsxRuntime automatic @jsxImportSource preact */
// The question a destructive action asks first, without JavaScript: a page of its own (a GET, so
// reaching it changes nothing) whose one form posts the action; "Cancel" goes back unchanged.
import type { FastifyReply, FastifyRequest } from "fastify";
import { PORTAL_MESSAGES } from "../i18n.ts";
import { frameOf, sendPortalPage } from "../render.tsx";
import { Csrf, Layout } from "./layout.tsx";

export interface Confirmation {
  question: string;
  consequence: string;
  /** Where the form posts: the action itself. */
  action: string;
  button: string;
  /** Where "Cancel" leads. */
  back: string;
  /** What the form posts besides the CSRF token (the amount of a refund asked about). */
  fields?: Record<string, string>;
  section: "links" | "payments" | "saved-cards" | "developers" | "users" | "account";
}

export function sendConfirmPage(request: FastifyRequest, reply: FastifyReply, c: Confirmation) {
  const m = PORTAL_MESSAGES[request.portal.lang];
  return sendPortalPage(reply, 200, (nonce) => (
    <Layout {...frameOf(request, nonce)} title={c.question} section={c.section}>
      <section class="card" data-confirm>
        <h1>{c.question}</h1>
        <p>{c.consequence}</p>
        <form method="post" action={c.action} class="actions">
          <Csrf token={request.portal.session!.csrfToken} />
          {Object.entries(c.fields ?? {}).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <button type="submit" class="danger">
            {c.button}
          </button>
          <a href={c.back} class="button secondary">
            {m.form.cancel}
          </a>
        </form>
      </section>
    </Layout>
  ));
}
