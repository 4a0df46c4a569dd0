import { createHash, randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitResultSchema, type ElicitResult, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { publishMcpSessionMessage, subscribeMcpSession, type Bus } from '@spindle/bus';
import { jsonRpcMessageSchema, type JsonRpcMessage, type Principal } from '@spindle/contracts';
import type { McpElicitation } from '@spindle/projections';
import type { Logger } from 'pino';

/**
 * What an MCP client sends about its calls in flight, between gateways: the endpoint is
 * stateless, so the POST that answers the server's question (an elicitation) or cancels a call
 * may reach another gateway than the one holding the call. Each is published on the session's
 * channel (core NATS) and the holder, subscribed while the call runs, takes it.
 */
export class McpSessionRelay {
  constructor(
    private readonly bus: Bus,
    private readonly logger: Logger,
  ) {}

  /** Passes on a client's answer or cancellation (one that is not a JSON-RPC message is left to the transport to refuse). */
  relay(caller: Principal, session: string, message: unknown): void {
    const parsed = jsonRpcMessageSchema.safeParse(message);
    if (parsed.success) publishMcpSessionMessage(this.bus, sessionKeyOf(caller, session), parsed.data);
  }

  /** Listens for one call's cancellation and the answers to its questions, until `close`. */
  watch(caller: Principal, session: string, call: { requestId: RequestId; transport: Transport; onCancel: () => void }): CallWatch {
    return new CallWatch(this.bus, this.logger, sessionKeyOf(caller, session), call);
  }
}

/** One call's side of the relay: it sees the call canceled, and asks the client questions on the call's own stream. */
export class CallWatch {
  private readonly waiting = new Map<string, (message: JsonRpcMessage) => void>();
  private readonly subscription;

  constructor(
    bus: Bus,
    logger: Logger,
    sessionKey: string,
    private readonly call: { requestId: RequestId; transport: Transport; onCancel: () => void },
  ) {
    this.subscription = subscribeMcpSession(bus, sessionKey, {
      onMessage: (message) => {
        if (message.method === 'notifications/cancelled' && message.params?.requestId === call.requestId) call.onCancel();
        else if (message.method === undefined && message.id !== undefined) this.waiting.get(String(message.id))?.(message);
      },
      onInvalid: (subject, reason) => logger.warn({ subject, reason }, 'dropping an MCP session message that is not one'),
    });
  }

  /** Asks the client (form elicitation, on the call's stream); `cancel` when it cannot or will not answer. `signal`: the call ended. */
  async elicit(elicitation: McpElicitation, signal: AbortSignal): Promise<ElicitResult> {
    // Our own id: two calls of one session, each with its own protocol server, would both count from 0.
    const id = `elicit-${randomUUID()}`;
    const answered = new Promise<JsonRpcMessage | undefined>((resolve) => {
      this.waiting.set(id, resolve);
      if (signal.aborted) resolve(undefined);
      else signal.addEventListener('abort', () => resolve(undefined), { once: true });
    });
    try {
      await this.call.transport.send(
        { jsonrpc: '2.0', id, method: 'elicitation/create', params: { ...elicitation } },
        { relatedRequestId: this.call.requestId },
      );
      const reply = await answered;
      // Withdrawn (answered elsewhere, or the call ended): the client may close its question.
      if (!reply) await this.withdraw(id);
      const result = ElicitResultSchema.safeParse(reply?.result);
      return result.success ? result.data : { action: 'cancel' };
    } finally {
      this.waiting.delete(id);
    }
  }

  private async withdraw(id: string): Promise<void> {
    await this.call.transport
      .send(
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'no longer needed' } },
        { relatedRequestId: this.call.requestId },
      )
      .catch(() => undefined); // The call's stream is gone: nothing to withdraw it from.
  }

  close(): void {
    this.subscription.close();
  }
}

/** The channel of a caller's session: their tenant, who they are, and the session id they were given. */
function sessionKeyOf(caller: Principal, session: string): string {
  return createHash('sha256').update(`${caller.tenant}\n${caller.actor.id}\n${session}`).digest('hex').slice(0, 32);
}
