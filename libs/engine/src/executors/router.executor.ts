import { describeIssues, SpindleError } from '@spindle/contracts';
import { compileJsonSchema } from '../definition/json-schema';
import type { ModelScript } from '../definition/model-script.schema';
import { evaluateCondition } from '../expressions/cel-expression';
import { renderTemplate } from '../interpreter/render-template';
import { callModel } from './model-call';
import type { NodeContext, NodeExecutor } from './node-executor';

interface RouterInput {
  routes: Array<{ handle: string; when?: string; description?: string }>;
  default?: string;
  /** What the model decides about, when a model routes. */
  prompt?: string;
}

/**
 * Picks one handle: by expression (the first route whose CEL `when` holds) or, when the router
 * has a `model`, by the model's choice among the described routes (its answer is a JSON
 * object naming the route, validated against the list). Falls back to `default`.
 */
export const routerExecutor: NodeExecutor<'router', RouterInput> = {
  failureCode: 'expression_error',
  prepare: (node, state) => ({
    routes: node.routes,
    ...(node.default ? { default: node.default } : {}),
    ...(node.model ? { prompt: renderTemplate(node.prompt ?? '{{input}}', state) } : {}),
  }),
  async execute(node, input, ctx) {
    const chosen = node.model
      ? await askModel(node.model, node.script, input, ctx)
      : input.routes.find((r) => r.when && evaluateCondition(r.when, ctx.state))?.handle;
    const handle = chosen ?? input.default;
    if (!handle) throw new SpindleError('expression_error', `router "${node.id}": no route matched and it has no default`);
    return { delta: {}, handle };
  },
};

async function askModel(model: string, script: ModelScript | undefined, input: RouterInput, ctx: NodeContext): Promise<string | undefined> {
  const handles = input.routes.map((r) => r.handle);
  const schema = { type: 'object', properties: { route: { enum: [...handles, 'none'] }, reason: { type: 'string' } }, required: ['route'] };
  const system = [
    'Choose the one route that fits the request below. Routes:',
    ...input.routes.map((r) => `- ${r.handle}: ${r.description}`),
    `Answer with JSON only, matching: ${JSON.stringify(schema)}. Use "none" when no route fits.`,
  ].join('\n');
  const reply = await callModel(ctx, {
    model,
    system,
    messages: [{ role: 'user', content: input.prompt ?? '' }],
    newMessages: 1,
    stream: false,
    script,
  });
  let answer: unknown;
  try {
    answer = JSON.parse(reply.text.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1'));
  } catch {
    throw new SpindleError('validation_failed', `router "${ctx.nodeId}": the model's choice is not JSON: ${reply.text.slice(0, 200)}`);
  }
  const result = compileJsonSchema(schema, 'choice')(answer);
  if (!result.ok)
    throw new SpindleError(
      'validation_failed',
      `router "${ctx.nodeId}": the model chose no listed route (${describeIssues(result.issues)})`,
    );
  const route = (result.value as { route: string }).route;
  return route === 'none' ? undefined : route;
}
