import type { FastifyInstance } from "fastify";
import { createMerchant } from "../db/merchants-repository.ts";
import { type AdminDeps, requiredName } from "./index.ts";
import { CreateMerchantBody } from "./schemas.ts";

export function registerCreateMerchant(app: FastifyInstance, deps: AdminDeps) {
  app.post("/merchants", { schema: { tags: ["Admin"], summary: "Create a merchant", body: CreateMerchantBody } }, async (request) => {
    const { name } = request.body as { name: string };
    return createMerchant(deps.db, requiredName(name));
  });
}
