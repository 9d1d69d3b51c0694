import { randomBytes, createHmac, createHash } from "node:crypto";
import { chmod, link, mkdir, open, rename, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { AppError } from "./errors.ts";
import { hashPassword, verifyPassword } from "./password-hash.ts";

/**
 * The private secrets store: one JSON file in the data directory, mode 0600. Secrets never go to
 * the database, a log line or an error body.
 *
 * Several instances share the file (one DATA_DIR) and each holds it in memory. A change is made
 * under a lock every instance honours (`options.lock`), on the file as it is then (so two instances
 * changing two secrets keep both), and `onWritten` listeners hear of it: the app tells the other
 * instances to `reload()` (an event that carries no value). Without that event an instance
 * notices a rewritten file by `refresh()`, one stat (every write renames a new file into place).
 */
export interface SecretsFile {
  apiKey: string;
  /** scrypt hash of the admin web password: `scrypt$<salt hex>$<hash hex>`. */
  adminPasswordHash: string;
  /** HMAC key for session cookies and preview confirmations. */
  signingKey: string;
  /** Named credentials of integrations ("suwayomi.password", "prowlarr.apiKey", …); absent = not set. */
  integrations?: Record<string, string>;
}

export interface Secrets {
  apiKey: string;
  signingKey: string;
  /** Whether `password` is the admin password: one scrypt on libuv's pool, never on the event loop. */
  checkAdminPassword(password: string): Promise<boolean>;
  /**
   * Changes the admin password (stored as a new scrypt hash in the 0600 file). Refused with
   * `password_set_by_environment` when ADMIN_PASSWORD sets it.
   */
  setAdminPassword(password: string): Promise<void>;
  /** Whether ADMIN_PASSWORD sets the password (it cannot be changed through the API then). */
  passwordFromEnvironment: boolean;
  /** A fingerprint of the current password: sessions opened under another one are no longer valid. */
  passwordStamp(): string;
  /** The password generated on this start (printed once), or null. */
  generatedPassword: string | null;
  sign(payload: string): string;
  /** A named integration secret ("suwayomi.password"), or null when not set. Never log the value. */
  getIntegrationSecret(name: string): string | null;
  /** Stores (or with null removes) a named integration secret in the 0600 file; writes are serialised. */
  setIntegrationSecret(name: string, value: string | null): Promise<void>;
  /** Re-reads the file (another instance changed it). */
  reload(): Promise<void>;
  /**
   * Re-reads the file when it is not the one this instance last read or wrote (one stat). A file
   * that cannot be read leaves the copy in memory as it is; the next check tries again.
   */
  refresh(): Promise<void>;
  /** Called after this instance rewrote the file; returns the unsubscription. */
  onWritten(listener: () => void): () => void;
  /** Called after the admin password changed, here or (once re-read) on another instance. */
  onPasswordChanged(listener: () => void): () => void;
}

export interface SecretsOptions {
  /** Holds the file against the other instances while a change is made (nothing to hold when alone). */
  lock?: <T>(fn: () => Promise<T>) => Promise<T>;
}

/** What tells one version of the file from another: every write renames a new file into place. */
type Version = string;
const versionOf = (s: { ino: number; size: number; mtimeMs: number }): Version => `${s.ino}:${s.size}:${s.mtimeMs}`;

/** The file's content and version, read from one open handle. */
async function readVersioned(file: string): Promise<{ stored: SecretsFile; version: Version }> {
  const handle = await open(file, "r");
  try {
    const version = versionOf(await handle.stat());
    return { stored: JSON.parse(await handle.readFile("utf8")) as SecretsFile, version };
  } finally {
    await handle.close();
  }
}

/**
 * Integration secret holding a scrypt hash of the MD5 of the generated admin password: KOReader's
 * sync sends that MD5 (http/reader-auth.ts), which the password's own hash cannot check.
 */
export const READER_KEY_SECRET = "koreader.passwordMd5";

const md5 = (s: string) => createHash("md5").update(s, "utf8").digest("hex");

async function writePrivate(file: string, data: string): Promise<Version> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, data, { mode: 0o600 });
  await chmod(tmp, 0o600);
  const version = versionOf(await stat(tmp));
  await rename(tmp, file);
  return version;
}

/** Writes `file` only if it does not exist yet: its version, or null when another was first. */
async function createPrivate(file: string, data: string): Promise<Version | null> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(tmp, data, { mode: 0o600 });
  await chmod(tmp, 0o600);
  try {
    await link(tmp, file);
    return versionOf(await stat(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return null;
    throw e;
  } finally {
    await unlink(tmp);
  }
}

export async function loadSecrets(
  dataDir: string,
  overrides: { apiKey: string | null; adminPassword: string | null },
  options: SecretsOptions = {},
): Promise<Secrets> {
  await mkdir(dataDir, { recursive: true });
  const file = path.join(dataDir, "secrets.json");
  let stored: SecretsFile | null = null;
  let version: Version | null = null;
  try {
    ({ stored, version } = await readVersioned(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT")
      throw new Error(`cannot read ${file}: ${(e as Error).message}`, { cause: e });
  }
  let generatedPassword: string | null = null;
  if (!stored) {
    generatedPassword = overrides.adminPassword ? null : randomBytes(9).toString("base64url");
    stored = {
      apiKey: randomBytes(24).toString("hex"),
      adminPasswordHash: await hashPassword(overrides.adminPassword ?? generatedPassword ?? ""),
      signingKey: randomBytes(32).toString("hex"),
      ...(generatedPassword
        ? {
            integrations: {
              [READER_KEY_SECRET]: await hashPassword(md5(generatedPassword)),
            },
          }
        : {}),
    };
    // Created only if absent: instances started at once on an empty data folder keep the first
    // one's file (a rename would let the last one win, each then holding secrets of its own).
    const created = await createPrivate(file, JSON.stringify(stored, null, 2));
    if (created) version = created;
    else {
      ({ stored, version } = await readVersioned(file));
      generatedPassword = null;
    }
  } else {
    await chmod(file, 0o600);
  }
  const secrets = stored;
  // ADMIN_PASSWORD is compared like a stored password (one scrypt), so every login costs the same.
  const envHash = overrides.adminPassword !== null ? await hashPassword(overrides.adminPassword) : null;
  const sign = (payload: string) => createHmac("sha256", secrets.signingKey).update(payload).digest("base64url");
  // The environment's password gets a stable fingerprint (its hash above is salted anew each start):
  // a hash with a salt derived from the signing key, so a new ADMIN_PASSWORD ends the old sessions.
  const envStamp =
    overrides.adminPassword !== null
      ? await hashPassword(overrides.adminPassword, Buffer.from(sign("password-env-salt"), "base64url").subarray(0, 16))
      : null;
  const lock = options.lock ?? (<T>(fn: () => Promise<T>) => fn());
  const written = new Set<() => void>();
  const passwordChanged = new Set<() => void>();

  /** Takes a version of the file into memory; the password's listeners hear when its hash changed. */
  function adopt(next: SecretsFile, v: Version): void {
    const before = secrets.adminPasswordHash;
    secrets.adminPasswordHash = next.adminPasswordHash;
    secrets.integrations = next.integrations;
    version = v;
    if (before !== next.adminPasswordHash) for (const l of passwordChanged) l();
  }

  // One re-read or change at a time in this process; a change holds the file for every instance.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn);
    queue = next.catch(() => undefined);
    return next;
  };
  const reload = () =>
    serial(async () => {
      const { stored: next, version: v } = await readVersioned(file);
      if (v !== version) adopt(next, v);
    });
  /** Rewrites the file from its current content: what another instance changed meanwhile stays. */
  const change = async (fn: (current: SecretsFile) => SecretsFile) => {
    await serial(() =>
      lock(async () => {
        const { stored: current } = await readVersioned(file);
        const next = fn({ ...current, integrations: { ...current.integrations } });
        adopt(next, await writePrivate(file, JSON.stringify(next, null, 2)));
      }),
    );
    for (const l of written) l();
  };
  async function refresh(): Promise<void> {
    try {
      if (versionOf(await stat(file)) !== version) await reload();
    } catch {
      // Kept as it is: the file is being replaced or was damaged by hand (a start would refuse it).
    }
  }

  return {
    getIntegrationSecret(name) {
      return secrets.integrations?.[name] ?? null;
    },
    async setIntegrationSecret(name, value) {
      await change((current) => {
        const integrations = current.integrations ?? {};
        if (value === null) delete integrations[name];
        else integrations[name] = value;
        return { ...current, integrations };
      });
    },
    apiKey: overrides.apiKey ?? secrets.apiKey,
    signingKey: secrets.signingKey,
    generatedPassword,
    passwordFromEnvironment: envHash !== null,
    async checkAdminPassword(password) {
      // Another instance may have changed the password a moment ago: its old one must fail here too.
      if (envHash === null) await refresh();
      return verifyPassword(envHash ?? secrets.adminPasswordHash, password);
    },
    async setAdminPassword(password) {
      if (envHash !== null) throw new AppError("password_set_by_environment");
      const hash = await hashPassword(password);
      // KOReader's key (the MD5 of the password) changes with it: the old one stops working at once.
      const readerKey = await hashPassword(md5(password));
      await change((current) => ({
        ...current,
        adminPasswordHash: hash,
        integrations: { ...current.integrations, [READER_KEY_SECRET]: readerKey },
      }));
    },
    passwordStamp() {
      return sign(envStamp !== null ? `password-env:${envStamp}` : `password:${secrets.adminPasswordHash}`);
    },
    sign,
    reload,
    refresh,
    onWritten(listener) {
      written.add(listener);
      return () => written.delete(listener);
    },
    onPasswordChanged(listener) {
      passwordChanged.add(listener);
      return () => passwordChanged.delete(listener);
    },
  };
}
