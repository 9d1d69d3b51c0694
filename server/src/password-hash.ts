/**
 * Password hashing: scrypt through Node's asynchronous API, so that a check runs on libuv's thread
 * pool and never blocks the event loop. Every check costs one scrypt with the same parameters,
 * whether the user exists or not (`verifyPassword(null, …)` hashes against a throwaway hash).
 */
import crypto from "node:crypto";

const KEY_BYTES = 32;
const SALT_BYTES = 16;

function scrypt(password: string, salt: Buffer, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Called through the module object (not a destructured binding) so that tests can count calls.
    crypto.scrypt(password, salt, length, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt$<salt hex>$<hash hex>` with a fresh random salt (or the given one). */
export async function hashPassword(password: string, salt: Buffer = crypto.randomBytes(SALT_BYTES)): Promise<string> {
  return `scrypt$${salt.toString("hex")}$${(await scrypt(password, salt, KEY_BYTES)).toString("hex")}`;
}

/** A stored hash nobody's password matches: what an unknown user's password is compared with. */
const NOBODY = `scrypt$${"00".repeat(SALT_BYTES)}$${"00".repeat(KEY_BYTES)}`;

/** Whether `password` matches `stored`; a null or malformed `stored` costs the same and answers false. */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  const [scheme, saltHex, hashHex] = (stored ?? NOBODY).split("$");
  const wellFormed = scheme === "scrypt" && !!saltHex && !!hashHex && hashHex.length === KEY_BYTES * 2;
  const [salt, expected] = wellFormed
    ? [Buffer.from(saltHex, "hex"), Buffer.from(hashHex, "hex")]
    : [Buffer.alloc(SALT_BYTES), Buffer.alloc(KEY_BYTES)];
  const actual = await scrypt(password, salt, KEY_BYTES);
  return crypto.timingSafeEqual(expected, actual) && stored !== null && wellFormed;
}
