import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createDatabase } from '@spindle/db';
import { readsControlPlaneSettings, startStack, testEnv } from '@spindle/testing';
import { sql } from 'kysely';
import { summarizeCpuProfile, type CpuProfile, type FrameTime, type ProfileWindow } from './cpu-profile-summary';
import { measureConcurrentChains } from './durable-path.bench';
import { GatewayClient } from './gateway-client';
import { fmt } from './stats';

const ROOT = resolve(__dirname, '..', '..');
const PROFILES = join(ROOT, 'bench-results', 'profiles');

/**
 * `npm run profile`: the benchmark's 20 concurrent 50-node runs through a stack whose every service
 * runs under `node --cpu-prof`, then each service's top frames by self time, where its time goes by
 * package, and (when Postgres has `pg_stat_statements` loaded) the statements that cost the most.
 * The profiles stay in bench-results/profiles/<service> for Chrome's DevTools.
 */
async function main() {
  rmSync(PROFILES, { recursive: true, force: true });
  const stack = await startStack({
    namespacePrefix: 'p',
    logLevel: 'warn',
    nodeArgs: (service) => {
      mkdirSync(join(PROFILES, service), { recursive: true });
      return ['--cpu-prof', `--cpu-prof-dir=${join(PROFILES, service)}`];
    },
    serviceEnv: (name): Record<string, string> =>
      readsControlPlaneSettings(name) ? { SPINDLE_TENANT_MAX_RUNNING: '5000', SPINDLE_TENANT_STARTS_PER_MINUTE: '100000' } : {},
  });
  const statements = await statementsReader(testEnv().databaseUrl);
  let chains;
  let measured: ProfileWindow | undefined;
  try {
    const client = new GatewayClient(stack.gatewayUrl, stack.auth);
    // One warm-up round (the services' first runs compile and fill caches), then the measured ones.
    await measureConcurrentChains(client, undefined, 20, 50, 1, 0);
    await statements.reset();
    const fromUs = monotonicUs();
    chains = await measureConcurrentChains(client, stack, 20, 50, Number(process.env.PROFILE_ROUNDS ?? 5), 0);
    measured = { fromUs, toUs: monotonicUs() };
    console.log(`nodes/s ${fmt(chains.nodesPerSec, 0)}; CPU per node, µs:`);
    for (const [role, us] of chains.cpuPerNodeUs) console.log(`  ${role.padEnd(16)} ${fmt(us, 0)}`);
    if (chains.perRun) console.log(`per run: ${JSON.stringify(chains.perRun)}`);
    await statements.print();
  } finally {
    await stack.stop();
    await statements.close();
  }
  for (const service of readdirSync(PROFILES)) {
    for (const file of readdirSync(join(PROFILES, service)).filter((f) => f.endsWith('.cpuprofile'))) {
      const profile = JSON.parse(readFileSync(join(PROFILES, service, file), 'utf8')) as CpuProfile;
      const summary = summarizeCpuProfile(profile, ROOT, 15, measured);
      console.log(
        `\n${service} (${file}): busy ${fmt(summary.busyMs, 0)} ms of ${fmt(summary.totalMs, 0)} ms sampled in the measured rounds`,
      );
      printTimes('by place', summary.places);
      printTimes('by frame', summary.frames);
    }
  }
}

/** The monotonic clock V8's profiles are stamped with, µs. */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

function printTimes(title: string, times: FrameTime[]): void {
  console.log(`  ${title}:`);
  for (const t of times) console.log(`    ${fmt(t.share * 100, 1).padStart(5)} %  ${fmt(t.ms, 0).padStart(6)} ms  ${t.frame}`);
}

/** `pg_stat_statements` when Postgres has it loaded (`shared_preload_libraries`); otherwise a line that says so. */
async function statementsReader(databaseUrl: string) {
  const db = createDatabase({ url: databaseUrl, schema: 'public', maxConnections: 1 });
  const loaded = await sql`create extension if not exists pg_stat_statements`
    .execute(db)
    .then(() => sql`select 1 from pg_stat_statements limit 1`.execute(db))
    .then(
      () => true,
      () => false,
    );
  return {
    reset: async () => {
      if (loaded) await sql`select pg_stat_statements_reset()`.execute(db);
    },
    print: async () => {
      if (!loaded) return console.log('pg_stat_statements is not loaded (shared_preload_libraries): no statement figures');
      const { rows } = await sql<{ query: string; calls: string; ms: number; rows: string }>`
        select query, calls, total_exec_time as ms, rows from pg_stat_statements
        where dbid = (select oid from pg_database where datname = current_database())
        order by total_exec_time desc limit 15`.execute(db);
      console.log('Postgres statements by total time:');
      for (const r of rows) {
        const text = r.query.replace(/\s+/g, ' ').slice(0, 110);
        console.log(`  ${fmt(r.ms, 0).padStart(6)} ms  ${String(r.calls).padStart(7)} calls  ${String(r.rows).padStart(7)} rows  ${text}`);
      }
    },
    close: () => db.destroy(),
  };
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
