import { headers as natsHeaders } from '@nats-io/transport-node';
import type { Context } from '@opentelemetry/api';
import { runCommandSchema, type RunCommand } from '@spindle/contracts';
import { injectTraceContext } from '@spindle/telemetry';
import type { Bus } from './bus-connection';
import { retryBusFaults, type BusRetry } from './bus-faults';

/**
 * Queues a command for the runners. The message id makes a repeated publish a no-op, so a
 * publish NATS did not acknowledge is retried until it is (or `bus_unavailable`).
 */
export async function publishRunCommand(
  bus: Bus,
  command: RunCommand,
  /** Links the runner's span to the caller's trace. */
  traceContext?: Context,
  retry: BusRetry = { retryForMs: 10_000 },
): Promise<void> {
  const valid = runCommandSchema.parse(command);
  const msgID = valid.type === 'run.resume' ? `${valid.runId}:resume:${valid.afterSeq}` : `${valid.runId}:${valid.type}`;
  const headers = natsHeaders();
  if (traceContext) injectTraceContext(headers, traceContext);
  await retryBusFaults(
    `queuing ${valid.type} for run ${valid.runId}`,
    () => bus.js.publish(bus.names.startCommand, JSON.stringify(valid), { msgID, headers, timeout: 5_000 }),
    retry,
  );
}
