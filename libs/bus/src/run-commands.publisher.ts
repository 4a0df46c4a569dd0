import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { runCommandSchema, type RunCommand } from '@spindle/contracts';
import type { Bus } from './bus-connection';

/** Queues a command for the runners; the message id makes a repeated publish a no-op. */
export async function publishRunCommand(bus: Bus, command: RunCommand, headers: MsgHdrs = natsHeaders()): Promise<void> {
  const valid = runCommandSchema.parse(command);
  await bus.js.publish(bus.names.startCommand, JSON.stringify(valid), { msgID: valid.type === 'run.resume' ? `${valid.runId}:resume:${valid.afterSeq}` : `${valid.runId}:${valid.type}`, headers });
}
