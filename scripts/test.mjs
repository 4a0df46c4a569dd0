#!/usr/bin/env node
// `npm test`: builds, then lints, type-checks and runs every project's unit and integration
// tests (against real NATS and Postgres), then the end-to-end tests with real service
// processes. Ends with one line: "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { preflight } from './preflight.mjs';
import { defaults } from './services.mjs';

const env = {
  ...process.env,
  NX_DAEMON: 'false',
  NX_NO_CLOUD: 'true',
  NX_TUI: 'false',
  NATS_URL: process.env.NATS_URL ?? defaults.NATS_URL,
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
};
const problems = await preflight(env);
if (problems.length > 0) console.warn(`spindle: ${problems.join(' ')}\nspindle: tests will try Testcontainers instead.`);

rmSync('tmp/jest-results', { recursive: true, force: true });
mkdirSync('tmp/jest-results', { recursive: true });

const steps = [
  ['build', ['npx', 'tsc', '-b', 'tsconfig.build.json']],
  ['build the console', ['npx', 'vite', 'build', '--config', 'apps/console/vite.config.ts', '--logLevel', 'warn']],
  // Every kustomization rendered and every object checked against its schema.
  ['validate the Kubernetes manifests', ['node', 'scripts/validate-deploy.mjs']],
  [
    'lint, typecheck, unit and integration tests',
    ['npx', 'nx', 'run-many', '-t', 'lint', 'typecheck', 'test', '--skip-nx-cache', '--outputStyle=static', '--parallel=2'],
  ],
  ['end-to-end tests', ['npx', 'nx', 'run', 'e2e:e2e', '--skip-nx-cache', '--outputStyle=static']],
  // SIGKILL of a runner, the recorder, nats-server and the gateway under load; every run checked.
  ['chaos run (short)', ['node', 'bench/dist/chaos/run-chaos.js', '--short']],
];
let failedStep;
for (const [name, [cmd, ...args]] of steps) {
  console.log(`\nspindle test: ${name}`);
  const result = spawnSync(cmd, args, { stdio: 'inherit', env });
  if (result.status !== 0) {
    failedStep = name;
    break;
  }
}

const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
for (const file of readdirSync('tmp/jest-results')) {
  const r = JSON.parse(readFileSync(`tmp/jest-results/${file}`, 'utf8'));
  failures.push(...(r.failures ?? []));
  // Jest's summary reporter writes passed/failed/skipped; Vitest's JSON reporter (the console) numPassedTests…
  totals.passed += r.passed ?? r.numPassedTests ?? 0;
  totals.failed += r.failed ?? r.numFailedTests ?? 0;
  totals.skipped += r.skipped ?? r.numPendingTests ?? 0;
}
for (const f of failures) console.error(`\nFAILED ${f.test}\n${f.error}`);
if (failedStep) console.error(`\nspindle test: "${failedStep}" failed`);
console.log(`\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(failedStep || totals.failed > 0 ? 1 : 0);
