import {
  A2A_PROTOCOL_VERSION,
  type A2aMessage,
  type A2aTask,
  type A2aTaskStatus,
  type RunEvent,
  type RunEventOf,
} from '@spindle/contracts';
import { openRequestsOf, runPhase } from './run-requests';

/**
 * Runs as A2A tasks: a task is a run (its id the run id, its context the run too), its state a
 * fold of the run's log, its output the `output` artifact. A run waiting for a person is a task in
 * `input-required`, whose status message lists the open requests; the next message answers one.
 */

/** The task a run's log describes, as it stands after its last event. */
export function a2aTaskOf(events: readonly RunEvent[]): A2aTask {
  const queued = events[0] as RunEventOf<'run.queued'>;
  const runId = queued.runId;
  const task = { kind: 'task' as const, id: runId, contextId: runId, metadata: { workflow: queued.data.workflow } };
  const phase = runPhase(events);
  const timestamp = events.at(-1)!.at;
  switch (phase.phase) {
    case 'queued':
      return { ...task, status: { state: 'submitted', timestamp } };
    case 'running':
    case 'yielded':
      return { ...task, status: { state: 'working', timestamp } };
    case 'waiting':
      return { ...task, status: inputRequired(events, timestamp) };
    case 'ended':
      return endedTask(task, phase.terminal as Terminal, timestamp);
  }
}

type Terminal = RunEventOf<'run.completed' | 'run.failed' | 'run.canceled'>;

function endedTask(task: Omit<A2aTask, 'status'>, terminal: Terminal, timestamp: string): A2aTask {
  switch (terminal.type) {
    case 'run.completed':
      return {
        ...task,
        status: { state: 'completed', timestamp },
        artifacts: [{ artifactId: 'output', name: 'output', parts: [{ kind: 'data', data: terminal.data.output }] }],
      };
    case 'run.failed':
      return {
        ...task,
        status: {
          state: 'failed',
          timestamp,
          message: agentSays(task.id, terminal, `the run failed (${terminal.data.error.code}): ${terminal.data.error.message}`),
        },
      };
    case 'run.canceled':
      return { ...task, status: { state: 'canceled', timestamp, message: agentSays(task.id, terminal, 'the run was canceled') } };
  }
}

/** `input-required`, saying what each open request asks and how to answer it (its id, its form or the call to approve). */
function inputRequired(events: readonly RunEvent[], timestamp: string): A2aTaskStatus {
  const requests = openRequestsOf(events);
  const last = events.at(-1)!;
  const message: A2aMessage = {
    ...agentSays(last.runId, last, requests.map((r) => r.prompt).join('\n') || 'the run waits for a person'),
  };
  message.parts.push({ kind: 'data', data: { requests } });
  return { state: 'input-required', timestamp, message };
}

function agentSays(runId: string, event: RunEvent, text: string): A2aMessage {
  return {
    kind: 'message',
    messageId: `${runId}-${event.seq}`,
    role: 'agent',
    taskId: runId,
    contextId: runId,
    parts: [{ kind: 'text', text }],
  };
}

/**
 * The start body a message makes: its data part is the run's `parameters` when the workflow has a
 * schema for them (its text the `input`); otherwise the input is the data, or else the text.
 */
export function startBodyOfMessage(definition: unknown, message: A2aMessage): Record<string, unknown> {
  const { text, data } = contentOf(message);
  const hasParameters = typeof definition === 'object' && definition !== null && 'parameters' in definition;
  if (hasParameters) return { parameters: data ?? {}, input: text ?? null };
  return { input: data ?? text ?? null };
}

/**
 * The answer a message gives a run waiting for a person: its data part is the answer as
 * `POST …/respond` takes it (`requestId` naming the request, when more than one is open); a
 * message of text only answers `{ text }`.
 */
export function answerOfMessage(message: A2aMessage): { requestId?: string; body: Record<string, unknown> } {
  const { text, data } = contentOf(message);
  if (!data) return { body: { text: text ?? '' } };
  const { requestId, ...body } = data;
  return { ...(typeof requestId === 'string' && { requestId }), body };
}

function contentOf(message: A2aMessage): { text?: string; data?: Record<string, unknown> } {
  const texts = message.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : []));
  const data = message.parts.find((p) => p.kind === 'data');
  return { ...(texts.length > 0 && { text: texts.join('\n') }), ...(data?.kind === 'data' && { data: data.data }) };
}

/** A workflow's A2A agent card: one skill (the workflow), JSON-RPC at `url`, bearer credentials, streaming. */
export function a2aAgentCardOf(workflow: { name: string; version: number; definition: unknown }, url: string): Record<string, unknown> {
  const described = typeof workflow.definition === 'object' && workflow.definition !== null && 'description' in workflow.definition;
  const description = described
    ? String((workflow.definition as { description: unknown }).description)
    : `Runs the Spindle workflow "${workflow.name}".`;
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: workflow.name,
    description,
    url,
    preferredTransport: 'JSONRPC',
    version: String(workflow.version),
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A Spindle API key or OIDC access token.' } },
    security: [{ bearer: [] }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json'],
    skills: [{ id: workflow.name, name: workflow.name, description, tags: ['spindle-workflow'] }],
  };
}
