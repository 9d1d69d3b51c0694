import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import type PrismaTypes from "../generated/pothos-types.ts";
import { getDatamodel } from "../generated/pothos-types.ts";
import type { Repos } from "../services/context.ts";
import type { Services } from "../services/index.ts";
import type { Db } from "../db/client.ts";
import type { EventBus } from "../events.ts";

export interface GraphQLContext {
  /** For the Pothos Prisma plugin's relation fields only; root fields load through `rows`. */
  db: Db;
  rows: Repos["graph"];
  services: Services;
  events: EventBus;
  /** Who is calling ("api-key" or the web user); null is refused before any resolver runs. */
  user: string | null;
}

/** Configuration only: the types live one file each under ./types. */
export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphQLContext;
  DefaultFieldNullability: false;
}>({
  plugins: [PrismaPlugin],
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

builder.queryType({});
builder.mutationType({});
