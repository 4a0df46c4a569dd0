import { isSpindleError, type RunEventOf } from '@spindle/contracts';
import { validateDefinition, type WorkflowDefinition } from '@spindle/engine';

export type PreparedRun =
  | { ok: true; definition: WorkflowDefinition; subgraphs: Map<string, { version: number; definition: WorkflowDefinition }> }
  | { ok: false; message: string };

/** The run's definition and its embedded subgraphs, validated; a log that fails this cannot run. */
export function prepareRun(definitionSource: unknown, queued: RunEventOf<'run.queued'>): PreparedRun {
  try {
    const definition = validateDefinition(definitionSource);
    const subgraphs = new Map(
      Object.entries(queued.data.subgraphs ?? {}).map(([ref, { version, definition: sub }]) => [
        ref,
        { version, definition: validateDefinition(sub) },
      ]),
    );
    return { ok: true, definition, subgraphs };
  } catch (e) {
    if (!isSpindleError(e)) throw e;
    return { ok: false, message: e.message };
  }
}
