import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SpindleClient } from '@spindle/client';
import {
  builtinEvaluatorsSchema,
  canonicalJson,
  describeIssues,
  zodFieldIssues,
  type AddDatasetItemsBody,
  type Experiment,
} from '@spindle/contracts';
import { z } from 'zod';

/**
 * An experiment example in `examples/experiments/`: versions of one workflow, a dataset file (JSON
 * Lines) and evaluators; each version runs the dataset as an experiment, and the comparison must
 * show the means and the differing items it expects. Offline, like every example.
 */
export const experimentExampleSchema = z.strictObject({
  description: z.string().min(1).max(2000),
  workflow: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/),
  /** Saved in order: each the workflow's next version. */
  versions: z.array(z.record(z.string(), z.unknown())).min(2).max(5),
  dataset: z.strictObject({ name: z.string().min(1), file: z.string().regex(/^datasets\/[a-z0-9][a-z0-9._-]*\.jsonl$/) }),
  evaluators: builtinEvaluatorsSchema,
  expect: z.strictObject({
    /** Each version's score means, in the order of `versions`. */
    means: z.array(z.record(z.string(), z.number())),
    /** How many items the comparison shows differing between the versions. */
    differingItems: z.number().int().nonnegative(),
  }),
});
export type ExperimentExample = z.infer<typeof experimentExampleSchema> & { name: string; dir: string };

export interface ExperimentExampleOutcome {
  experiments: Experiment[];
  mismatches: string[];
}

export function readExperimentExamples(examplesDir: string): ExperimentExample[] {
  const dir = join(examplesDir, 'experiments');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const result = experimentExampleSchema.safeParse(JSON.parse(readFileSync(join(dir, file), 'utf8')));
      if (!result.success)
        throw new Error(
          `examples/experiments/${file}: ${describeIssues(zodFieldIssues(result.error.issues.slice(0, 1), { whole: '(root)' }))}`,
        );
      return { ...result.data, name: basename(file, '.json'), dir: examplesDir };
    });
}

/** Saves the versions and the dataset, runs one experiment per version to its end, and compares them. */
export async function runExperimentExample(
  spindle: SpindleClient,
  example: ExperimentExample,
  timeoutMs = 60_000,
): Promise<ExperimentExampleOutcome> {
  const versions: number[] = [];
  for (const definition of example.versions) versions.push((await spindle.workflows.put(example.workflow, definition)).version);
  const datasetVersion = await datasetOf(spindle, example);
  const experiments: Experiment[] = [];
  for (const version of versions) {
    const started = await spindle.experiments.start({
      workflow: example.workflow,
      version,
      dataset: example.dataset.name,
      datasetVersion,
      evaluators: example.evaluators,
      concurrency: 4,
      name: `${example.name}: v${version}`,
    });
    experiments.push(await ended(spindle, started.experimentId, timeoutMs));
  }
  const comparison = await spindle.experiments.compare(experiments.map((e) => e.experimentId));
  const mismatches: string[] = [];
  example.expect.means.forEach((means, i) => {
    for (const [score, mean] of Object.entries(means)) {
      const got = experiments[i]?.summary.scores[score]?.mean;
      if (got === undefined || got === null || Math.abs(got - mean) > 1e-9)
        mismatches.push(`v${versions[i]} ${score}: mean ${got}, expected ${mean}`);
    }
  });
  const differing = comparison.items.filter(
    (item) => new Set(Object.values(item.results).map((r) => JSON.stringify(r.output))).size > 1,
  ).length;
  if (differing !== example.expect.differingItems)
    mismatches.push(`${differing} items differ between the versions, expected ${example.expect.differingItems}`);
  return { experiments, mismatches };
}

/** The dataset version holding the file's items: the latest when it does (a stack the example ran on before), else a new one. */
async function datasetOf(spindle: SpindleClient, example: ExperimentExample): Promise<number> {
  const { name, file } = example.dataset;
  await spindle.datasets.put(name, { description: example.description.slice(0, 200) });
  const lines = readFileSync(join(example.dir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const items = lines.map((l) => JSON.parse(l) as { input: unknown; expected?: unknown });
  const latest = await spindle.datasets.items(name, { limit: 200 });
  const same = (i: { input: unknown; expected?: unknown }) => canonicalJson({ input: i.input, expected: i.expected ?? null });
  const held = new Set(latest.items.map(same));
  if (latest.version > 0 && latest.items.length === items.length && items.every((i) => held.has(same(i)))) return latest.version;
  return (await spindle.datasets.addItems(name, { items: items as NonNullable<AddDatasetItemsBody['items']> })).version;
}

async function ended(spindle: SpindleClient, experimentId: string, timeoutMs: number): Promise<Experiment> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const experiment = await spindle.experiments.get(experimentId);
    if (experiment.status !== 'running') return experiment;
    if (Date.now() > deadline) throw new Error(`experiment ${experimentId} did not end within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
