import { describeIssues, zodFieldIssues } from '@spindle/contracts';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';

/**
 * One runnable example in `examples/`: a workflow (inline, or a definition file next to it), what it
 * needs saved first (catalog agents, child workflows), the run's input, the answers a person gives,
 * and the outcome it must reach. `npm run examples` and the e2e suite both run every one.
 */
const definition = z.record(z.string(), z.unknown());
/** The folder's own configuration (the `examples` project that type-checks the modules), not examples. */
const FOLDER_CONFIG = new Set(['project.json', 'tsconfig.json']);
/** A workflow built in code: `<name>.workflow.ts` (or .mts, .js, .mjs). */
const WORKFLOW_MODULE = /^[a-z0-9][a-z0-9_-]*\.workflow\.(ts|mts|js|mjs)$/;

/** An answer to the first open request of `node`: an input answer's body, or `decision` for a tool approval. */
const answerSchema = z.strictObject({
  node: z.string().min(1),
  /** Input requests: the body to send (`{ approved }`, `{ text }`, `{ data }`). */
  answer: z.record(z.string(), z.unknown()).optional(),
  /** Approval requests: approve or reject the exact call asked about (its id, name and hash are filled in). */
  decision: z.enum(['approve', 'reject']).optional(),
  message: z.string().optional(),
});

const expectSchema = z.strictObject({
  status: z.enum(['completed', 'failed', 'canceled']),
  /** The failure's code. */
  error: z.string().optional(),
  /** Keys the run's output must hold with these values (deeply; other keys may be present too). */
  output: z.record(z.string(), z.unknown()).optional(),
  /** Scores the run's evaluators must give it once it completed, by name (each waited for, within a bound). */
  scores: z.record(z.string(), z.union([z.number(), z.boolean(), z.string()])).optional(),
  /** The requests the run made, in order: which node asked and how each ended. */
  requests: z
    .array(z.strictObject({ node: z.string(), kind: z.enum(['input', 'approval']), status: z.enum(['answered', 'timed_out', 'canceled']) }))
    .optional(),
});

export const exampleFileSchema = z
  .strictObject({
    description: z.string().min(1).max(2000),
    /** The definition, inline… */
    workflow: definition.optional(),
    /** …or a definition file in the same folder (kept plain so it can be PUT as it is). */
    workflowFile: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]*\.json$/)
      .optional(),
    /** …or a module in the same folder that builds it in code (@spindle/sdk), saved with `spindle deploy`. */
    workflowModule: z.string().regex(WORKFLOW_MODULE).optional(),
    /** Catalog agents the workflow names with `{ "ref": "<name>" }`, saved first. */
    agents: z.record(z.string(), definition).optional(),
    /** Workflows a subgraph node runs, by catalog name, saved first. */
    workflows: z.record(z.string(), definition).optional(),
    /** Files the input carries, by a name the input marks with `{ "$file": "<name>" }`: paths under `examples/`, uploaded first. */
    files: z.record(z.string().regex(/^[a-z0-9_-]{1,64}$/), z.string().regex(/^files\/[a-z0-9][a-z0-9._-]*$/)).optional(),
    /** Knowledge bases a retrieve node searches, saved and filled first: the base as PUT, and its documents. */
    knowledgeBases: z
      .record(
        z.string(),
        z.strictObject({
          base: definition,
          documents: z
            .array(z.strictObject({ source: z.string(), text: z.string(), metadata: definition.optional() }))
            .min(1)
            .max(50),
        }),
      )
      .optional(),
    input: z.unknown().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    answers: z.array(answerSchema).default([]),
    expect: expectSchema,
  })
  .refine((e) => [e.workflow, e.workflowFile, e.workflowModule].filter((w) => w !== undefined).length === 1, {
    message: 'set exactly one of workflow, workflowFile or workflowModule',
    path: ['workflow'],
  });

export type ExampleAnswer = z.infer<typeof answerSchema>;
export type ExampleExpectation = z.infer<typeof expectSchema>;

export interface Example {
  /** The file name without `.json`: the workflow's catalog name. */
  name: string;
  file: string;
  description: string;
  /** The definition; absent when a module builds it (`module`). */
  workflow?: Record<string, unknown>;
  /** The path of the module that builds the workflow in code, which `spindle deploy` saves under the example's name. */
  module?: string;
  agents: Record<string, Record<string, unknown>>;
  workflows: Record<string, Record<string, unknown>>;
  knowledgeBases: Record<
    string,
    { base: Record<string, unknown>; documents: Array<{ source: string; text: string; metadata?: Record<string, unknown> }> }
  >;
  input: unknown;
  /** Name → path of the files its input marks, and the folder they are under. */
  files: Record<string, string>;
  dir: string;
  parameters?: Record<string, unknown>;
  answers: ExampleAnswer[];
  expect: ExampleExpectation;
}

/** The folder's examples, by file name; a file that is neither an example nor a definition one names is an error. */
export function readExamples(dir: string): Example[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !FOLDER_CONFIG.has(f))
    .sort();
  const modules = readdirSync(dir).filter((f) => WORKFLOW_MODULE.test(f));
  const parsed = new Map(files.map((f) => [f, JSON.parse(readFileSync(join(dir, f), 'utf8')) as unknown]));
  const examples: Example[] = [];
  const used = new Set<string>();
  for (const [file, raw] of parsed) {
    if (isBareDefinition(raw)) continue;
    const result = exampleFileSchema.safeParse(raw);
    if (!result.success) {
      throw new Error(`examples/${file}: ${describeIssues(zodFieldIssues(result.error.issues.slice(0, 1), { whole: '(root)' }))}`);
    }
    const e = result.data;
    if (e.workflowModule !== undefined) {
      if (!modules.includes(e.workflowModule)) throw new Error(`examples/${file}: workflowModule ${e.workflowModule} is not in examples/`);
      used.add(e.workflowModule);
    }
    if (e.workflowFile !== undefined) {
      const target = parsed.get(e.workflowFile);
      if (!isBareDefinition(target)) throw new Error(`examples/${file}: workflowFile ${e.workflowFile} is not a definition in examples/`);
      used.add(e.workflowFile);
    }
    examples.push({
      name: basename(file, '.json'),
      file,
      description: e.description,
      ...(e.workflowModule !== undefined
        ? { module: join(dir, e.workflowModule) }
        : { workflow: e.workflow ?? (parsed.get(e.workflowFile ?? '') as Record<string, unknown>) }),
      agents: e.agents ?? {},
      workflows: e.workflows ?? {},
      knowledgeBases: e.knowledgeBases ?? {},
      input: e.input,
      files: e.files ?? {},
      dir,
      ...(e.parameters !== undefined ? { parameters: e.parameters } : {}),
      answers: e.answers,
      expect: e.expect,
    });
  }
  // A plain definition must be run by some example, so every file in the folder is checked.
  const orphan = files.find((f) => isBareDefinition(parsed.get(f)) && !used.has(f)) ?? modules.find((f) => !used.has(f));
  if (orphan !== undefined)
    throw new Error(`examples/${orphan} is a definition no example runs (name it in an example's workflowFile or workflowModule)`);
  return examples;
}

function isBareDefinition(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && 'kind' in raw;
}
