import { onRunEvent, type ReplayDivergenceMode, type RunEvent, type RunEventHandlers, type RunEventOf } from '@spindle/contracts';
import type { ModelResult } from '../ports';
import type { RecordedToolOutcome } from '../interpreter/run-history';
import { modelCallFingerprint, toolCallFingerprint } from './call-fingerprints';

/** A recorded answer and where the recording has it (the seq of its `model.completed` or `tool.returned`). */
export interface Served<T> {
  seq: number;
  answer: T;
}

/**
 * The model and tool calls a recorded run made, by what makes a call the same
 * (`call-fingerprints.ts`), each answer served once and in recorded order among equal calls.
 * A replay asks it before every call: a hit is the recorded answer, a miss is the divergence.
 */
export class CallRecording {
  private readonly models = new Map<string, Array<Served<ModelResult>>>();
  private readonly tools = new Map<string, Array<Served<RecordedToolOutcome>>>();

  /**
   * `recorded`: the recorded run's log. `served`: seqs of answers a replay already took (read
   * from its own log when it is resumed), so no answer is served twice.
   */
  constructor(
    readonly sourceRunId: string,
    readonly onDivergence: ReplayDivergenceMode,
    recorded: readonly RunEvent[],
    served: ReadonlySet<number> = new Set(),
  ) {
    const modelCalls = new Map<string, string>();
    const toolCalls = new Map<string, string>();
    const skip = () => undefined;
    const on: RunEventHandlers = {
      'model.started': (e) => modelCalls.set(e.spanId, modelCallFingerprint(e.data)),
      'model.completed': (e) => {
        const key = modelCalls.get(e.spanId);
        if (key !== undefined && !served.has(e.seq)) push(this.models, key, { seq: e.seq, answer: recordedModelResult(e) });
      },
      'tool.called': (e) => toolCalls.set(e.spanId, toolCallFingerprint(e.data.name, e.data.arguments)),
      'tool.returned': (e) => {
        const key = toolCalls.get(e.spanId);
        const answer: RecordedToolOutcome = e.data.error ? { ok: false, error: e.data.error } : { ok: true, result: e.data.result ?? null };
        if (key !== undefined && !served.has(e.seq)) push(this.tools, key, { seq: e.seq, answer });
      },
      // A failed model call has no answer to serve: the same call in the replay is made, or stops it.
      'model.failed': skip,
      'run.queued': skip,
      'run.started': skip,
      'run.awaiting': skip,
      'run.resumed': skip,
      'run.yielded': skip,
      'run.completed': skip,
      'run.failed': skip,
      'run.canceled': skip,
      'node.started': skip,
      'node.completed': skip,
      'node.failed': skip,
      'attempt.failed': skip,
      'loop.iteration': skip,
      'branch.started': skip,
      'branch.completed': skip,
      'checkpoint.saved': skip,
      'input.requested': skip,
      'input.answered': skip,
      'approval.requested': skip,
      'approval.resolved': skip,
      'retrieval.completed': skip,
      'context.truncated': skip,
      'memory.compacted': skip,
      'usage.reported': skip,
      custom: skip,
    };
    for (const e of recorded) onRunEvent(on, e);
  }

  /** The recorded answer to this model call (by its `model.started` data), or undefined: the replay diverges here. */
  takeModel(started: RunEventOf<'model.started'>['data']): Served<ModelResult> | undefined {
    return this.models.get(modelCallFingerprint(started))?.shift();
  }

  /** The recorded outcome of this tool call, or undefined: the replay diverges here. */
  takeTool(name: string, args: Record<string, unknown>): Served<RecordedToolOutcome> | undefined {
    return this.tools.get(toolCallFingerprint(name, args))?.shift();
  }
}

function push<T>(map: Map<string, Array<Served<T>>>, key: string, value: Served<T>): void {
  const queue = map.get(key);
  if (queue) queue.push(value);
  else map.set(key, [value]);
}

function recordedModelResult(e: RunEventOf<'model.completed'>): ModelResult {
  return {
    text: e.data.text,
    ...(e.data.reasoning !== undefined && { reasoning: e.data.reasoning }),
    usage: e.data.usage,
    ...(e.data.finishReason !== undefined && { finishReason: e.data.finishReason }),
    ...(e.data.responseModel !== undefined && { responseModel: e.data.responseModel }),
    toolCalls: e.data.toolCalls ?? [],
    ...(e.data.usage.costUsd !== undefined && { costUsd: e.data.usage.costUsd }),
  };
}

/** Seqs of recorded answers a replay's own log says it already served (`replayedFrom`). */
export function servedSeqs(replayLog: readonly RunEvent[]): Set<number> {
  const seqs = new Set<number>();
  for (const e of replayLog) {
    if ((e.type === 'model.completed' || e.type === 'tool.returned') && e.data.replayedFrom) seqs.add(e.data.replayedFrom.seq);
  }
  return seqs;
}
