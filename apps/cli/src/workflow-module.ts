import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileFunction } from 'node:vm';
import { isWorkflow } from '@spindle/sdk';
import type * as TypeScript from 'typescript';
import { UsageError } from './usage-error';

/**
 * Workflows built in code (`@spindle/sdk`): a module's default export and named exports that are
 * workflows, each saved under its own name. JavaScript is imported as it is; TypeScript is
 * transpiled in memory with the `typescript` package the project itself has (no download, no
 * binary of ours), then run as CommonJS, its relative `.ts` imports with it.
 */
export const MODULE_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'] as const;
const TYPESCRIPT_EXTENSIONS = ['.ts', '.mts', '.cts'];

export interface WorkflowExport {
  name: string;
  definition: unknown;
}

/** Why a module gave no definition: it threw, exported none, or built an invalid one. */
export class WorkflowModuleError extends Error {
  override readonly name = 'WorkflowModuleError';
  readonly code = 'workflow_module';
}

export function isWorkflowModule(file: string): boolean {
  return (MODULE_EXTENSIONS as readonly string[]).includes(extname(file));
}

/** The workflows `file` exports, built; refuses a module that throws, exports none, or exports two of one name. */
export async function loadWorkflowModule(file: string, cwd: string): Promise<WorkflowExport[]> {
  const path = resolve(cwd, file);
  if (!existsSync(path)) throw new UsageError(`${file}: no such file`);
  let exports: unknown;
  try {
    exports = TYPESCRIPT_EXTENSIONS.includes(extname(path)) ? requireTypeScript(path, typeScriptFor(path, cwd)) : await importModule(path);
  } catch (e) {
    if (isObject(e) && e.code === 'workflow_module') throw e; // typescript is missing
    throw new WorkflowModuleError(`${file} threw while loading: ${messageOf(e)}`);
  }
  return workflowsIn(exports, file);
}

/** The workflows among a module's exports (a CommonJS module's `exports`, or an ES module's namespace). */
export function workflowsIn(exports: unknown, file: string): WorkflowExport[] {
  // The same workflow may be both the default and a named export; a CommonJS module seen through
  // `import()` has its `exports` object as the default.
  const fromDefault = isWorkflow(defaultOf(exports)) ? [] : valuesOf(defaultOf(exports));
  const found = [...new Set([exports, ...valuesOf(exports), ...fromDefault].filter(isWorkflow))];
  if (found.length === 0)
    throw new WorkflowModuleError(`${file} exports no workflow: export one made with @spindle/sdk (export default workflow('name')…)`);
  const byName = new Map<string, WorkflowExport>();
  for (const w of found) {
    if (byName.has(w.name)) throw new WorkflowModuleError(`${file} exports two workflows named "${w.name}"`);
    let definition: unknown;
    try {
      definition = w.build();
    } catch (e) {
      throw new WorkflowModuleError(`${file}: workflow "${w.name}" does not build: ${messageOf(e)}`);
    }
    byName.set(w.name, { name: w.name, definition });
  }
  return [...byName.values()];
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object';
const defaultOf = (value: unknown) => (isObject(value) ? value.default : undefined);
const valuesOf = (value: unknown) => (isObject(value) ? Object.values(value) : []);

/** An error's message, also for one made in the module's own realm (not an `instanceof Error` here). */
const messageOf = (e: unknown) => (isObject(e) && typeof e.message === 'string' ? e.message : String(e));

// Kept as a real `import()` in this CommonJS build (module nodenext), so ES modules load too.
const importModule = (path: string): Promise<unknown> => import(pathToFileURL(path).href);

/** The project's TypeScript: next to the file first, then the working folder's. */
function typeScriptFor(path: string, cwd: string): typeof TypeScript {
  for (const from of [path, join(cwd, 'package.json')]) {
    try {
      return createRequire(from)('typescript') as typeof TypeScript;
    } catch {
      // not installed there: try the next place
    }
  }
  throw new WorkflowModuleError(
    `${path} is TypeScript, and no \`typescript\` package is installed next to it or in ${cwd}: ` +
      'install it (npm install --save-dev typescript) or compile the module to .js first',
  );
}

/** Runs a TypeScript module as CommonJS; its relative TypeScript imports are transpiled the same way, once each. */
function requireTypeScript(path: string, ts: typeof TypeScript, cache = new Map<string, { exports: unknown }>()): unknown {
  const cached = cache.get(path);
  if (cached) return cached.exports;
  const module = { exports: {} as unknown };
  cache.set(path, module);
  const { outputText } = ts.transpileModule(readFileSync(path, 'utf8'), {
    fileName: path,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, sourceMap: false },
  });
  const nodeRequire = createRequire(path);
  const requireFrom = (specifier: string) => {
    const local = localTypeScript(dirname(path), specifier);
    return local ? requireTypeScript(local, ts, cache) : nodeRequire(specifier);
  };
  compileFunction(outputText, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: path })(
    module.exports,
    Object.assign(requireFrom, { resolve: nodeRequire.resolve }),
    module,
    path,
    dirname(path),
  );
  return module.exports;
}

/** `./nodes`, `./nodes.js` or `./nodes.ts` naming a TypeScript file next to the importer. */
function localTypeScript(dir: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dir, specifier);
  const stem = base.replace(/\.(m|c)?js$/, '');
  const candidates = TYPESCRIPT_EXTENSIONS.includes(extname(base)) ? [base] : TYPESCRIPT_EXTENSIONS.map((ext) => `${stem}${ext}`);
  return candidates.find((c) => existsSync(c));
}
