#!/usr/bin/env node
// Applies every service's migrations to its own schema (services also do this at start-up;
// running it first means a fresh database is ready before any service takes traffic).
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const {
  createDatabase,
  migrateToLatest,
  serviceSchema,
  gatewayMigrations,
  traceMigrations,
  checkpointMigrations,
  approvalMigrations,
} = require('../libs/db/dist/index.js');

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const namespace = process.env.SPINDLE_NAMESPACE ?? '';
const owners = { gateway: gatewayMigrations, trace: traceMigrations, checkpoint: checkpointMigrations, approval: approvalMigrations };
for (const [owner, migrations] of Object.entries(owners)) {
  const schema = serviceSchema(owner, namespace);
  const db = createDatabase({ url, schema, maxConnections: 1 });
  try {
    const applied = await migrateToLatest(db, schema, migrations);
    console.log(
      applied.length > 0
        ? `spindle: schema ${schema}: applied ${applied.length} migration${applied.length === 1 ? '' : 's'}`
        : `spindle: schema ${schema} is up to date`,
    );
  } finally {
    await db.destroy();
  }
}
