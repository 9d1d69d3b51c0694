/** Numbers read from the environment: absent or empty takes the default, anything else must be valid. */
export function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  if (!/^\d{1,15}$/.test(text) || Number(text) <= 0)
    throw new Error(`${name} must be a positive whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}
