import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { readExamples, type Example } from './example-file';
import { createSpindleClient, type SpindleClient } from '@spindle/client';
import { runExample } from './run-example';
import { httpUploader } from './example-files';
import { cliDeployer } from './deploy-module';
import { readExperimentExamples, runExperimentExample, type ExperimentExample } from './experiment-example';

/**
 * `npm run examples [name…]`: saves every example of `examples/` (or the named ones) into a running stack,
 * runs each to its end (answering as the example says) and prints what it did. Exits non-zero when an
 * example misses its expected outcome. The gateway is `SPINDLE_URL` (default http://localhost:8080); the
 * key is `SPINDLE_TOKEN` (as for the CLI), else the admin key `npm start` keeps in `.spindle/admin-key`.
 */
async function main(argv: string[]): Promise<number> {
  const root = resolve(__dirname, '../../../..');
  const base = (process.env.SPINDLE_URL ?? 'http://localhost:8080').replace(/\/$/, '');
  key = apiKey(root);
  if (key === undefined) {
    console.error('examples: no credentials: set SPINDLE_TOKEN, or start the stack with `npm start` (it writes .spindle/admin-key)');
    return 2;
  }
  const spindle = createSpindleClient({ baseUrl: base, token: key });
  if (!(await reachable(base))) {
    console.error(`examples: the gateway at ${base} (SPINDLE_URL) does not answer; start the stack with \`npm start\``);
    return 2;
  }
  const wanted = new Set(argv);
  const examples = readExamples(resolve(root, 'examples')).filter((e) => wanted.size === 0 || wanted.has(e.name));
  if (wanted.size > 0 && examples.length < wanted.size) console.error(`examples: unknown name in ${[...wanted].join(', ')}`);
  let failed = 0;
  for (const example of examples) failed += (await report(spindle, base, example)) ? 0 : 1;
  const experiments = readExperimentExamples(resolve(root, 'examples')).filter((e) => wanted.size === 0 || wanted.has(e.name));
  for (const example of experiments) failed += (await reportExperiment(spindle, base, example)) ? 0 : 1;
  const all = examples.length + experiments.length;
  console.log(`\n${all - failed} of ${all} examples reached their expected outcome`);
  return failed === 0 ? 0 : 1;
}

async function report(spindle: SpindleClient, base: string, example: Example): Promise<boolean> {
  console.log(`\n${example.name} — ${example.description}`);
  try {
    const outcome = await runExample(spindle, example, {
      upload: httpUploader((url, init) => fetch(url, withKey(init)), base),
      deploy: cliDeployer({ url: base, token: key ?? '' }),
    });
    const detail = outcome.error ? `${outcome.error.code}: ${outcome.error.message}` : JSON.stringify(outcome.output).slice(0, 300);
    console.log(`  run ${outcome.runId} ${outcome.status}: ${detail}`);
    for (const r of outcome.requests) console.log(`  request from ${r.node} (${r.kind}): ${r.status}`);
    console.log(`  trace: ${base}/v1/runs/${outcome.runId}/trace   console: ${base}/#/runs/${outcome.runId}`);
    for (const m of outcome.mismatches) console.log(`  ✗ ${m}`);
    if (outcome.mismatches.length === 0)
      console.log(`  ✓ ${example.expect.status}${example.expect.error ? ` (${example.expect.error})` : ''} as expected`);
    return outcome.mismatches.length === 0;
  } catch (error) {
    console.log(`  ✗ ${(error as Error).message}`);
    return false;
  }
}

async function reportExperiment(spindle: SpindleClient, base: string, example: ExperimentExample): Promise<boolean> {
  console.log(`\n${example.name} (experiment) — ${example.description}`);
  try {
    const { experiments, mismatches } = await runExperimentExample(spindle, example);
    for (const e of experiments) {
      const means = Object.entries(e.summary.scores).map(([name, s]) => `${name} ${s.mean}`);
      console.log(`  ${e.experimentId} ${e.workflow.name} v${e.workflow.version}: ${e.status}; ${means.join(', ')}`);
    }
    console.log(`  console: ${base}/#/experiments?compare=${experiments.map((e) => e.experimentId).join(',')}`);
    for (const m of mismatches) console.log(`  ✗ ${m}`);
    if (mismatches.length === 0) console.log('  ✓ compared as expected');
    return mismatches.length === 0;
  } catch (error) {
    console.log(`  ✗ ${(error as Error).message}`);
    return false;
  }
}

let key: string | undefined;
const withKey = (init: RequestInit): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${key}` },
});

function apiKey(root: string): string | undefined {
  const fromEnv = process.env.SPINDLE_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const file = resolve(root, '.spindle/admin-key');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

async function reachable(base: string): Promise<boolean> {
  return fetch(`${base}/healthz`).then(
    (r) => r.ok,
    () => false,
  );
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`examples: ${(error as Error).message}`);
    process.exit(1);
  },
);
