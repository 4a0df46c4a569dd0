import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startStack, testNamespace, type ServiceProcess, type Stack, readsControlPlaneSettings } from '@spindle/testing';
import { chaosProvider, chaosWorkflows } from '../chaos/chaos-workflows';
import { fmt, median, poolMap } from '../stats';
import { SoakDriver, SOAK_WORKFLOWS } from './soak-driver';
import { sampleService, slopePerThousand, type MemorySample } from './soak-sampler';

/**
 * `npm run soak -- --runs 3000`: the stack as separate processes (2 runners) with a fake
 * provider of low latency, driven through N runs of the chaos workflows (some followed over SSE,
 * reviews answered, some canceled). Samples every service's RSS (/proc) and V8 heap (/metrics)
 * after a warm-up and every `--every` runs, at quiet points (no run in flight), and reports how
 * many MiB each grows per 1,000 runs. `--heap-snapshots` also writes a heap snapshot of the
 * gateway and the runners after the warm-up and at the end (tmp/soak-heaps/; compare them with
 * `node bench/dist/soak/heap-diff.js <before> <after>`).
 */
const ROOT = join(__dirname, '../../..');
const runs = option('--runs', 3_000);
const warmup = option('--warmup', 300);
const every = option('--every', 500);
const concurrency = option('--concurrency', 8);
const heapSnapshots = process.argv.includes('--heap-snapshots');
const HEAP_DIR = join(ROOT, 'tmp', 'soak-heaps');

async function main() {
  const namespace = testNamespace('soak');
  if (heapSnapshots) mkdirSync(HEAP_DIR, { recursive: true });
  const stack = await startStack({
    namespace,
    runners: 2,
    logLevel: 'warn',
    reply: chaosProvider([], [2, 10], { marker: 'no-slow-runs-in-a-soak', latencyMs: [2, 10] }) as never,
    runnerEnv: { SPINDLE_PLUGINS: join(ROOT, 'examples/plugins/calculator.js'), RUNNER_CONCURRENCY: '8' },
    serviceEnv: (name): Record<string, string> =>
      readsControlPlaneSettings(name) ? { SPINDLE_TENANT_MAX_RUNNING: '5000', SPINDLE_TENANT_STARTS_PER_MINUTE: '100000' } : {},
    nodeArgs: () => (heapSnapshots ? ['--heapsnapshot-signal=SIGWINCH', `--diagnostic-dir=${HEAP_DIR}`] : []),
  });
  const samples = new Map<string, MemorySample[]>();
  // Ctrl-C (SIGINT) ends a long soak early: the figures measured so far, then the stack stops.
  process.once('SIGINT', () => {
    console.log(`\n${report(samples, samples.values().next().value?.at(-1)?.runs ?? 0)}`);
    void stack.stop().finally(() => process.exit(130));
  });
  try {
    for (const name of new Set(SOAK_WORKFLOWS))
      await stack.api(`/v1/workflows/${name}`, { method: 'PUT', body: JSON.stringify(chaosWorkflows[name]) });
    const driver = new SoakDriver(stack.gatewayUrl, stack.auth, stack.bus, namespace);
    const began = Date.now();
    let done = 0;
    const batch = async (size: number) => {
      const offset = done;
      await poolMap(
        Array.from({ length: size }, (_, k) => offset + k),
        concurrency,
        (i) => driver.drive(i),
      );
      done += size;
    };
    console.log(`soak: ${runs} runs after a warm-up of ${warmup}, ${concurrency} at a time, sampled every ${every}`);
    await batch(warmup);
    console.log(`soak: warm-up of ${warmup} runs took ${fmt((Date.now() - began) / 1_000, 0)} s`);
    await sampleAll(stack, samples, 0);
    if (heapSnapshots) await snapshot(stack, 'warm');
    for (let measured = 0; measured < runs;) {
      const size = Math.min(every, runs - measured);
      await batch(size);
      measured += size;
      await sampleAll(stack, samples, measured);
      console.log(`soak: ${measured} runs measured, ${fmt((Date.now() - began) / 1_000, 0)} s since the warm-up began`);
    }
    if (heapSnapshots) await snapshot(stack, 'end');
    console.log(`\n${report(samples, runs)}`);
    if (driver.unended.length > 0) console.log(`soak: ${driver.unended.length} run(s) never ended: ${JSON.stringify(driver.unended)}`);
  } finally {
    await stack.stop().catch((e: unknown) => console.error('soak: stopping the stack failed', e));
  }
}

/** Every service's memory once the last batch has ended (no run in flight), each figure printed as measured. */
async function sampleAll(stack: Stack, samples: Map<string, MemorySample[]>, measured: number): Promise<void> {
  await new Promise((r) => setTimeout(r, 2_000));
  for (const service of stack.processes) {
    const sample = await sampleService(service, measured);
    const series = samples.get(service.id) ?? [];
    series.push(sample);
    samples.set(service.id, series);
    console.log(
      `soak: after ${measured} runs ${service.id}: RSS ${fmt(sample.rssMiB)} MiB, heap used ${fmt(sample.heapMiB)} ` +
        `of ${fmt(sample.heapTotalMiB)} MiB, external ${fmt(sample.externalMiB)} MiB`,
    );
  }
}

/**
 * Growth per 1,000 runs: the least-squares slope over every sample after the warm-up, and the
 * median of the growth between consecutive samples (both scaled to 1,000 runs).
 */
function report(samples: Map<string, MemorySample[]>, runs: number): string {
  const lines = [
    `Memory over ${runs} runs after warm-up (MiB; growth per 1,000 runs):`,
    '| service | RSS after warm-up | RSS at end | RSS slope | RSS median step | heap after warm-up | heap at end | heap slope |',
    '| --- | --: | --: | --: | --: | --: | --: | --: |',
  ];
  for (const [id, series] of samples) {
    const [first, last] = [series[0], series[series.length - 1]];
    const steps = series.slice(1).map((s, k) => ((s.rssMiB - series[k].rssMiB) * 1_000) / (s.runs - series[k].runs));
    const rss = [first.rssMiB, last.rssMiB, slopePerThousand(series, (s) => s.rssMiB), median(steps)];
    const heap = [first.heapMiB, last.heapMiB, slopePerThousand(series, (s) => s.heapMiB)];
    lines.push(`| ${id} | ${[...rss, ...heap].map((v) => fmt(v)).join(' | ')} |`);
  }
  return lines.join('\n');
}

/**
 * A heap snapshot of the gateway and each runner, waited for until written. By SIGWINCH
 * (`--heapsnapshot-signal`): Nest's shutdown hooks take SIGUSR2 and would stop the service. Writing
 * one raises the process's RSS for good: a soak with snapshots measures heaps, not RSS.
 */
async function snapshot(stack: Stack, label: string): Promise<void> {
  const targets = stack.processes.filter((p) => p.name === 'gateway' || p.name === 'runner');
  for (const target of targets) await writeSnapshot(target, label);
}

async function writeSnapshot(target: ServiceProcess, label: string): Promise<void> {
  const pid = target.child.pid;
  const before = new Set(readdirSync(HEAP_DIR));
  target.child.kill('SIGWINCH');
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1_000));
    const written = readdirSync(HEAP_DIR).find((f) => !before.has(f) && f.includes(`.${pid}.`) && f.endsWith('.heapsnapshot'));
    // Node writes the file in one go; done once its size holds still for a second.
    if (written && (await steady(join(HEAP_DIR, written)))) {
      console.log(`soak: heap snapshot of ${target.id} (${label}): ${join(HEAP_DIR, written)}`);
      return;
    }
  }
  throw new Error(`soak: no heap snapshot of ${target.id} within 120 s`);
}

async function steady(file: string): Promise<boolean> {
  if (!existsSync(file)) return false;
  const size = statSync(file).size;
  await new Promise((r) => setTimeout(r, 1_000));
  return size > 0 && statSync(file).size === size;
}

function option(flag: string, fallback: number): number {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
