import { randomBytes, createHmac, createHash } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { AppError } from "./errors.ts";
import { hashPassword, verifyPassword } from "./password-hash.ts";

/**
 * The private secrets store: one JSON file in the data directory, mode 0600. Secrets never go to
 * the database, a log line or an error body.
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
}

/**
 * Integration secret holding a scrypt hash of the MD5 of the generated admin password: KOReader's
 * sync sends that MD5 (http/reader-auth.ts), which the password's own hash cannot check.
 */
export const READER_KEY_SECRET = "koreader.passwordMd5";

const md5 = (s: string) => createHash("md5").update(s, "utf8").digest("hex");

async function writePrivate(file: string, data: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, data, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

export async function loadSecrets(
  dataDir: string,
  overrides: { apiKey: string | null; adminPassword: string | null },
): Promise<Secrets> {
  await mkdir(dataDir, { recursive: true });
  const file = path.join(dataDir, "secrets.json");
  let stored: SecretsFile | null = null;
  try {
    stored = JSON.parse(await readFile(file, "utf8")) as SecretsFile;
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
    await writePrivate(file, JSON.stringify(stored, null, 2));
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
  // One write at a time: each rewrites the whole file from the in-memory copy.
  let writes: Promise<void> = Promise.resolve();
  return {
    getIntegrationSecret(name) {
      return secrets.integrations?.[name] ?? null;
    },
    setIntegrationSecret(name, value) {
      const integrations = { ...secrets.integrations };
      if (value === null) delete integrations[name];
      else integrations[name] = value;
      secrets.integrations = integrations;
      const next = writes.then(() => writePrivate(file, JSON.stringify(secrets, null, 2)));
      writes = next.catch(() => undefined);
      return next;
    },
    apiKey: overrides.apiKey ?? secrets.apiKey,
    signingKey: secrets.signingKey,
    generatedPassword,
    passwordFromEnvironment: envHash !== null,
    checkAdminPassword(password) {
      return verifyPassword(envHash ?? secrets.adminPasswordHash, password);
    },
    async setAdminPassword(password) {
      if (envHash !== null) throw new AppError("password_set_by_environment");
      const hash = await hashPassword(password);
      // KOReader's key (the MD5 of the password) changes with it: the old one stops working at once.
      const integrations = { ...secrets.integrations, [READER_KEY_SECRET]: await hashPassword(md5(password)) };
      const next = writes.then(() =>
        writePrivate(file, JSON.stringify({ ...secrets, adminPasswordHash: hash, integrations }, null, 2)),
      );
      writes = next.catch(() => undefined);
      await next;
      secrets.adminPasswordHash = hash;
      secrets.integrations = integrations;
    },
    passwordStamp() {
      return sign(envStamp !== null ? `password-env:${envStamp}` : `password:${secrets.adminPasswordHash}`);
    },
    sign,
  };
}
