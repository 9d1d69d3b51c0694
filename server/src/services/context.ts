import type { Config } from "../config.ts";
import type { Db, QueryCounter } from "../db/client.ts";
import { downloadRepo } from "../repositories/download-repo.ts";
import { fileRepo } from "../repositories/file-repo.ts";
import { graphRepo } from "../repositories/graph-repo.ts";
import { mapRepo } from "../repositories/map-repo.ts";
import { seriesRepo } from "../repositories/series-repo.ts";
import { slotRepo } from "../repositories/slot-repo.ts";
import { verificationRepo } from "../repositories/verification-repo.ts";
import { scheduledRunRepo } from "../repositories/scheduled-run-repo.ts";
import type { Secrets } from "../secrets.ts";
import type { EventBus } from "../events.ts";
import type { RequestActivity } from "../request-activity.ts";
import type { Cluster } from "../library/cluster.ts";

export function createRepos(db: Db) {
  return {
    series: seriesRepo(db),
    maps: mapRepo(db),
    slots: slotRepo(db),
    files: fileRepo(db),
    downloads: downloadRepo(db),
    verifications: verificationRepo(db),
    /** The last cycle of each scheduled pass, kept across restarts (scheduled-loop.ts). */
    scheduledRuns: scheduledRunRepo(db),
    /** Rows of the GraphQL types backed by Prisma, with the selection the query asks for. */
    graph: graphRepo(db),
  };
}

export type Repos = ReturnType<typeof createRepos>;

/** What every service is built from: configuration, the database and its repositories. */
export interface AppContext {
  config: Config;
  db: Db;
  queries: QueryCounter;
  repos: Repos;
  secrets: Secrets;
  /** Published after a write commits; GraphQL subscriptions listen. */
  events: EventBus;
  /** HTTP requests in flight (background work waits for a quiet moment). */
  activity: RequestActivity;
  /** This instance among the others on the same database: leases, locks, claims (library/cluster.ts). */
  cluster: Cluster;
  log: (message: string) => void;
}
