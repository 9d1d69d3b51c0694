// Filled in by the database test utilities (template database migrated once per run).
export default function setup(): void {}
