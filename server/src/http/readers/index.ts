/**
 * The reader apps' APIs: OPDS 1.2 (/opds/v1.2), OPDS 2 (/opds/v2), KOReader sync (/koreader) and
 * the Komga-compatible API (/komga), behind their own authentication (reader-auth.ts). Mounted on
 * the REST router by one call; app.ts sends these paths to it.
 */
import type { Hono } from "hono";
import { AppError } from "../../errors.ts";
import type { AppContext } from "../../services/context.ts";
import type { Services } from "../../services/index.ts";
import { readerAuth } from "../reader-auth.ts";
import { installReaderAuth } from "./common.ts";
import { komgaRoutes } from "./komga.ts";
import { koreaderRoutes } from "./koreader.ts";
import { opdsV1Routes } from "./opds-v1.ts";
import { opdsV2Routes } from "./opds-v2.ts";

export { isReaderAppPath } from "./common.ts";

export function readerAppRoutes(app: Hono, ctx: AppContext, services: Services): void {
  installReaderAuth(app, readerAuth(ctx.secrets, ctx.config.adminPassword));
  opdsV1Routes(app, services);
  opdsV2Routes(app, services);
  koreaderRoutes(app, services);
  komgaRoutes(app, services);
  for (const p of ["/opds/*", "/komga/*", "/koreader/*"]) {
    app.all(p, (c) => {
      throw new AppError(
        "not_found",
        `no route for ${c.req.method} ${c.req.path} (the reader APIs are read-only for library content)`,
      );
    });
  }
}
