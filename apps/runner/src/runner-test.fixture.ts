import { trace } from '@opentelemetry/api';
import type { Bus } from '@spindle/bus';
import { createEgressGuard, noInternalEgress } from '@spindle/egress';
import { createModelPort } from '@spindle/llm';
import { createLogger } from '@spindle/telemetry';
import { runFileReader } from './execution/run-files';
import { mcpPolicyFrom } from './mcp/mcp-policy';
import { loadPlugins } from './plugins/plugin-loader';
import type { RunExecutorDeps } from './run-executor';

/** What `executeRunCommand` needs, as a test runner has it: the offline model, built-in functions, quiet logs. */
export function testExecutorDeps(bus: Bus, overrides: Partial<RunExecutorDeps> = {}): RunExecutorDeps {
  return {
    bus,
    model: createModelPort({}, { readFile: runFileReader(bus) }),
    ...loadPlugins([]),
    tracer: trace.getTracer('test'),
    logger: createLogger('runner-test', { level: 'fatal' }),
    workerId: 'w-test',
    runTimeoutMs: 60_000,
    runTimeoutCeilingMs: 120_000,
    maxSteps: 100,
    mcpPolicy: mcpPolicyFrom(''),
    egressFetch: createEgressGuard(noInternalEgress).fetch,
    maxAttempts: 3,
    ...overrides,
  };
}
