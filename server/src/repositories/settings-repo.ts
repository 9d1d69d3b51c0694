import type { Db } from "../db/client.ts";

/**
 * Setting rows: one JSON value per key, for non-secret settings only (secrets live in the private
 * secrets file, server/src/secrets.ts). Every part of the service reads and writes them here.
 */
export function settingsRepo(db: Db) {
  return {
    /** The parsed value of `key`, or `fallback` when the row is missing or not valid JSON. */
    async get<T>(key: string, fallback: T): Promise<T> {
      const row = await db.setting.findUnique({ where: { key } });
      if (!row) return fallback;
      try {
        return JSON.parse(row.value) as T;
      } catch {
        return fallback;
      }
    },
    /** The stored text of `key` as it is (undefined when missing). */
    async text(key: string): Promise<string | undefined> {
      return (await db.setting.findUnique({ where: { key } }))?.value;
    },
    async putText(key: string, value: string): Promise<void> {
      await db.setting.upsert({ where: { key }, create: { key, value }, update: { value } });
    },
    async put(key: string, value: unknown): Promise<void> {
      const text = JSON.stringify(value);
      await db.setting.upsert({ where: { key }, create: { key, value: text }, update: { value: text } });
    },
  };
}

export type SettingsRepo = ReturnType<typeof settingsRepo>;
