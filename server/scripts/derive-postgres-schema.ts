// Writes prisma/postgres/schema.prisma from prisma/schema.prisma (see src/db/postgres-schema.ts).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { derivePostgresSchema } from "../src/db/postgres-schema.ts";

const prismaDir = path.resolve(import.meta.dirname, "..", "..", "prisma");
const target = path.join(prismaDir, "postgres", "schema.prisma");
mkdirSync(path.dirname(target), { recursive: true });
writeFileSync(target, derivePostgresSchema(readFileSync(path.join(prismaDir, "schema.prisma"), "utf8")));
console.log(`wrote ${path.relative(process.cwd(), target)}`);
