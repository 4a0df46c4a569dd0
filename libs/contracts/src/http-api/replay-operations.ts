import { z } from 'zod';
import { newReplayBodySchema, REPLAY_ID_PATTERN, replayListItemSchema, replaySchema } from '../replays';
import { ok, taggedAs, type HttpOperation } from './http-operation.types';

/** Replays: recorded runs re-driven through another version, their calls answered from the recording. */
export function replayOperations(): HttpOperation[] {
  const op = taggedAs('replays');
  return [
    op({
      operationId: 'startReplay',
      method: 'POST',
      path: '/v1/workflows/:name/replays',
      summary: 'Replay recorded runs through a version of their workflow',
      description:
        'Each recorded run (ended, of this workflow, not a fork) is re-driven through the version (its latest by default) as a ' +
        'run of its own, with the recorded input, state and parameters. Every model and tool call the same as one the recording ' +
        'made (same model, system, messages by hash and tools; same tool and arguments) is answered from the recording: no ' +
        'provider or tool is asked, and the run’s cost leaves it out. At the first call that differs the replay stops ' +
        '(`replay_diverged`), or with `onDivergence: call` makes it for real and goes on. The recorded runs are only read. ' +
        'Everything is checked before anything is stored (a run of another tenant is `404`, one not ended `409 run_active`); ' +
        'the dispatcher then starts the runs.',
      body: newReplayBodySchema,
      responses: { 201: ok('The replay, its runs pending.', replaySchema) },
    }),
    op({
      operationId: 'listReplays',
      method: 'GET',
      path: '/v1/replays',
      summary: "The tenant's replays, newest first",
      responses: { 200: ok('The replays, each with its number of runs.', z.object({ replays: z.array(replayListItemSchema) })) },
    }),
    op({
      operationId: 'getReplay',
      method: 'GET',
      path: '/v1/replays/:replayId',
      params: { replayId: z.string().regex(REPLAY_ID_PATTERN) },
      summary: 'A replay and, for each recorded run, where its replay first diverged',
      description:
        'Read from the two logs as they are now: each run’s outcome (`pending` until it ended, `same`, `diverged`, `stopped`, ' +
        '`failed`), its first divergence (a model call, a tool call, a branch, a node’s output or the run’s outcome, with the ' +
        'events of both logs and what differs), the calls served and made, and what the recording cost, what the replay would ' +
        'have cost, and what it spent.',
      responses: { 200: ok('The replay.', replaySchema) },
    }),
  ];
}
