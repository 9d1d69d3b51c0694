import { randomBytes, scryptSync, timingSafeEqual, createHmac, createHash } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";

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
  checkAdminPassword(password: string): boolean;
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

function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString("hex")}$${scryptSync(password, salt, 32).toString("hex")}`;
}

function verifyPassword(stored: string, password: string): boolean {
  const [scheme, saltHex, hashHex] = stored.split("$");
  if (scheme !== "scrypt" || !saltHex || !hashHex) return false;
  const expected = Buffer.from(hashHex, "hex");
  const actual = scryptSync(password, Buffer.from(saltHex, "hex"), expected.length);
  return timingSafeEqual(expected, actual);
}

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
      adminPasswordHash: hashPassword(overrides.adminPassword ?? generatedPassword ?? ""),
      signingKey: randomBytes(32).toString("hex"),
      ...(generatedPassword
        ? {
            integrations: {
              [READER_KEY_SECRET]: hashPassword(createHash("md5").update(generatedPassword, "utf8").digest("hex")),
            },
          }
        : {}),
    };
    await writePrivate(file, JSON.stringify(stored, null, 2));
  } else {
    await chmod(file, 0o600);
  }
  const secrets = stored;
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
    checkAdminPassword(password) {
      if (overrides.adminPassword !== null) {
        const a = Buffer.from(password);
        const b = Buffer.from(overrides.adminPassword);
        return a.length === b.length && timingSafeEqual(a, b);
      }
      return verifyPassword(secrets.adminPasswordHash, password);
    },
    sign(payload) {
      return createHmac("sha256", secrets.signingKey).update(payload).digest("base64url");
    },
  };
}
