/**
 * The crash-test child: run with `node --import tsx`, it performs one publication operation on the
 * data dir and library root of its environment (DATA_DIR, LIBRARY_ROOT) and kills itself with
 * SIGKILL at the step named by PUBLICATION_CRASH_AT (see __crashAt). CRASH_OP holds the operation
 * as JSON. Without a crash it prints the result as one JSON line and exits 0.
 */
import { loadConfig } from "../../src/config.ts";
import { createDb } from "../../src/db/client.ts";
import type { EventBus } from "../../src/events.ts";
import { createCluster } from "../../src/library/cluster.ts";
import { leaseRepo } from "../../src/repositories/lease-repo.ts";
import { createPublication, type PublishInput } from "../../src/library/publication.ts";
import type { Secrets } from "../../src/secrets.ts";
import { assemblyService } from "../../src/services/assembly/assembly-service.ts";
import { createRepos, type AppContext } from "../../src/services/context.ts";
import { requestActivity } from "../../src/request-activity.ts";

export type CrashOp =
  | { kind: "publish"; input: PublishInput }
  | { kind: "retire"; fileIds: number[]; reason: string }
  | { kind: "restore"; entryId: number }
  | { kind: "purge" }
  /** A whole book assembly: preview, build, publish with the chapters' retirement chained. */
  | { kind: "assemble"; seriesId: number; volume: string };

const config = loadConfig(process.env);
const { db, queries } = createDb(config.databaseUrl);
// Only what the publication module uses: no HTTP, no secrets, no recovery at start (the parent
// prepared a consistent library; recovery is what the parent's restart checks), and no event bus
// (nobody listens here, and loading graphql-yoga would double the child's start-up time).
const noSubscriptions = () => {
  throw new Error("no subscriptions in the crash child");
};
const events: EventBus = {
  publish: () => {},
  subscribe: noSubscriptions,
  publishAssembly: () => {},
  subscribeAssembly: noSubscriptions,
  publishWork: () => {},
  subscribeWork: noSubscriptions,
  publishSecretsChanged: () => {},
  subscribeSecrets: noSubscriptions,
  publishSessionsEnded: () => {},
  subscribeSessions: noSubscriptions,
  downloads: { publish: () => {}, subscribe: noSubscriptions },
  translations: { publish: () => {}, subscribe: noSubscriptions },
};
// The child signs and checks its own confirmation: a fixed MAC is enough inside one process.
const secrets = { sign: (payload: string) => Buffer.from(payload).toString("base64url").slice(-32) } as Secrets;
const log = (m: string) => console.error(m);
const cluster = createCluster(leaseRepo(db), { exclusive: true, leaseMs: config.leaseSeconds * 1000, log });
const ctx: AppContext = {
  config,
  db,
  queries,
  repos: createRepos(db),
  secrets,
  events,
  cluster,
  activity: requestActivity(),
  log,
};
const publication = createPublication(ctx);
const op = JSON.parse(process.env.CRASH_OP ?? "null") as CrashOp;

async function run(): Promise<unknown> {
  switch (op.kind) {
    case "publish":
      return publication.publish(op.input);
    case "retire":
      return publication.retire(op.fileIds, op.reason);
    case "restore":
      return publication.restore(op.entryId);
    case "purge":
      return publication.purgeExpired();
    case "assemble": {
      const assembly = assemblyService(ctx, publication);
      const preview = await assembly.preview(op.seriesId, op.volume);
      return assembly.assemble(op.seriesId, op.volume, preview.confirmation);
    }
  }
}

const result = await run();
await db.$disconnect();
console.log(JSON.stringify(result));
