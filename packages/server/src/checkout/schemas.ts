// The checkout's path and query parameters as TypeBox schemas: they type the handlers. The routes
// take failures themselves (attachValidation), so a reference that cannot be a link is the 404
// page and a query that fails is ignored, like any parameter the checkout does not know.
import type { FastifyRequest } from "fastify";
import Type from "typebox";

/** The references (and theme keys) Paylink issues; anything else cannot exist, so it is not looked up. */
const Key = Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" });

export const LinkParams = Type.Object({ reference: Key });

/** `?lang=is` or `?lang=en`; any other value (or a repeated one) is ignored, so it is not constrained here. */
export const LangQuery = Type.Object({ lang: Type.Optional(Type.Unknown()) });

export const LogoParams = Type.Object({ themeKey: Key });

/** `?v=` the logo version the page linked to; a stale or missing one only shortens caching. */
export const LogoQuery = Type.Object({ v: Type.Optional(Type.Unknown()) });

/** True when the path did not pass its schema: nothing can exist at that address. */
export function pathRejected(request: FastifyRequest): boolean {
  return request.validationError?.validationContext === "params";
}
