import type { Scope } from '@spindle/contracts';

/**
 * What a route needs: a scope; `authenticated` (any principal); `public` (no credentials at all).
 * `run` names the path parameter holding a run id: the run must be the caller's tenant's, or the
 * route answers `404 run_not_found` as if it did not exist.
 */
export interface RouteAccess {
  readonly need: Scope | 'authenticated' | 'public';
  readonly run?: 'id';
  /**
   * `erase`: a run whose log a lost store took is still its tenant's to erase (everywhere else it
   * is `410 run_log_lost`); its owner is then read from the runs list's projection.
   */
  readonly lostRun?: 'erase';
  /**
   * A stream token (`?access_token=sst_…`, minted by `POST /v1/runs/{id}/stream-tokens`) is taken
   * instead of `Authorization`: a browser's `EventSource` cannot send headers. Everywhere else a
   * stream token is refused.
   */
  readonly streamToken?: true;
}

/**
 * The one table of who may call what. Every `/v1` route has an entry: the gateway refuses to
 * start with a route that has none, and a test walks the router and checks the same.
 */
export const ROUTE_ACCESS: ReadonlyMap<string, RouteAccess> = new Map<string, RouteAccess>([
  // How to sign in, and who you are.
  ['GET /v1/auth/config', { need: 'public' }],
  // What the API is: its OpenAPI document.
  ['GET /v1/openapi.json', { need: 'public' }],
  ['GET /v1/me', { need: 'authenticated' }],
  // Workflows and agents.
  ['GET /v1/workflows', { need: 'runs:read' }],
  ['GET /v1/workflows/:name', { need: 'runs:read' }],
  ['GET /v1/workflows/:name/graph', { need: 'runs:read' }],
  ['GET /v1/workflows/:name/versions', { need: 'runs:read' }],
  ['GET /v1/workflows/:name/versions/:from/diff/:to', { need: 'runs:read' }],
  ['PUT /v1/workflows/:name', { need: 'workflows:write' }],
  ['POST /v1/workflows/:name/rollback', { need: 'workflows:write' }],
  ['DELETE /v1/workflows/:name', { need: 'workflows:write' }],
  ['GET /v1/agents', { need: 'runs:read' }],
  ['GET /v1/agents/:name', { need: 'runs:read' }],
  ['GET /v1/agents/:name/versions', { need: 'runs:read' }],
  ['GET /v1/agents/:name/versions/:from/diff/:to', { need: 'runs:read' }],
  ['PUT /v1/agents/:name', { need: 'workflows:write' }],
  ['POST /v1/agents/:name/rollback', { need: 'workflows:write' }],
  ['DELETE /v1/agents/:name', { need: 'workflows:write' }],
  // What the live runners can run (every tenant's runners are the same runners).
  ['GET /v1/functions', { need: 'runs:read' }],
  ['GET /v1/tools', { need: 'runs:read' }],
  // Runs.
  ['POST /v1/workflows/:name/runs', { need: 'runs:write' }],
  ['GET /v1/runs', { need: 'runs:read' }],
  ['GET /v1/overview', { need: 'runs:read' }],
  ['GET /v1/runs/:id', { need: 'runs:read', run: 'id' }],
  ['GET /v1/runs/:id/trace', { need: 'runs:read', run: 'id' }],
  ['GET /v1/runs/:id/lineage', { need: 'runs:read', run: 'id' }],
  ['GET /v1/runs/:id/events', { need: 'runs:read', run: 'id', streamToken: true }],
  // Minting a token that only reads this run grants no more than runs:read already does.
  ['POST /v1/runs/:id/stream-tokens', { need: 'runs:read', run: 'id' }],
  ['POST /v1/runs/:id/cancel', { need: 'runs:write', run: 'id' }],
  ['GET /v1/runs/:id/scores', { need: 'runs:read', run: 'id' }],
  ['GET /v1/runs/:id/evaluations', { need: 'runs:read', run: 'id' }],
  ['GET /v1/datasets', { need: 'runs:read' }],
  ['PUT /v1/datasets/:name', { need: 'runs:write' }],
  ['GET /v1/datasets/:name', { need: 'runs:read' }],
  ['DELETE /v1/datasets/:name', { need: 'runs:write' }],
  ['POST /v1/datasets/:name/items', { need: 'runs:write' }],
  ['GET /v1/datasets/:name/items', { need: 'runs:read' }],
  ['DELETE /v1/datasets/:name/items/:itemId', { need: 'runs:write' }],
  ['POST /v1/experiments', { need: 'runs:write' }],
  ['GET /v1/experiments', { need: 'runs:read' }],
  ['GET /v1/experiments/compare', { need: 'runs:read' }],
  ['GET /v1/experiments/:experimentId', { need: 'runs:read' }],
  ['GET /v1/experiments/:experimentId/items', { need: 'runs:read' }],
  ['POST /v1/experiments/:experimentId/cancel', { need: 'runs:write' }],
  ['POST /v1/workflows/:name/replays', { need: 'runs:write' }],
  ['GET /v1/score-configs', { need: 'runs:read' }],
  ['PUT /v1/score-configs/:name', { need: 'workflows:write' }],
  ['DELETE /v1/score-configs/:name', { need: 'workflows:write' }],
  ['PUT /v1/score-settings', { need: 'workflows:write' }],
  ['GET /v1/replays', { need: 'runs:read' }],
  ['GET /v1/replays/:replayId', { need: 'runs:read' }],
  ['POST /v1/runs/:id/scores', { need: 'runs:write', run: 'id' }],
  ['DELETE /v1/runs/:id', { need: 'admin', run: 'id', lostRun: 'erase' }],
  ['GET /v1/runs/:id/checkpoints', { need: 'runs:read', run: 'id' }],
  ['POST /v1/runs/:id/fork', { need: 'runs:write', run: 'id' }],
  // Threads: conversations across runs.
  ['GET /v1/threads', { need: 'runs:read' }],
  ['POST /v1/threads', { need: 'runs:write' }],
  ['GET /v1/threads/:threadId', { need: 'runs:read' }],
  ['GET /v1/threads/:threadId/state', { need: 'runs:read' }],
  ['POST /v1/threads/:threadId/state', { need: 'runs:write' }],
  ['GET /v1/threads/:threadId/runs', { need: 'runs:read' }],
  ['POST /v1/threads/:threadId/runs', { need: 'runs:write' }],
  // Webhooks: configuration (their URLs receive run outputs).
  ['GET /v1/webhooks', { need: 'workflows:write' }],
  ['POST /v1/webhooks', { need: 'workflows:write' }],
  ['GET /v1/webhooks/:webhookId', { need: 'workflows:write' }],
  ['DELETE /v1/webhooks/:webhookId', { need: 'workflows:write' }],
  ['GET /v1/webhooks/:webhookId/deliveries', { need: 'workflows:write' }],
  // Schedules: runs on a cron.
  ['GET /v1/schedules', { need: 'runs:read' }],
  ['POST /v1/schedules', { need: 'workflows:write' }],
  ['GET /v1/schedules/:scheduleId', { need: 'runs:read' }],
  ['GET /v1/schedules/:scheduleId/firings', { need: 'runs:read' }],
  ['POST /v1/schedules/:scheduleId/pause', { need: 'workflows:write' }],
  ['POST /v1/schedules/:scheduleId/resume', { need: 'workflows:write' }],
  ['POST /v1/schedules/:scheduleId/trigger', { need: 'runs:write' }],
  ['DELETE /v1/schedules/:scheduleId', { need: 'workflows:write' }],
  // Files: uploads a run's input, an answer or a message refers to.
  ['POST /v1/files', { need: 'runs:write' }],
  ['GET /v1/files/:fileId', { need: 'runs:read' }],
  ['GET /v1/files/:fileId/content', { need: 'runs:read' }],
  ['DELETE /v1/files/:fileId', { need: 'runs:write' }],
  // Knowledge bases: configuration is the catalog's (workflows:write); reading, runs:read.
  ['GET /v1/knowledge-bases', { need: 'runs:read' }],
  ['GET /v1/knowledge-bases/:name', { need: 'runs:read' }],
  ['PUT /v1/knowledge-bases/:name', { need: 'workflows:write' }],
  ['DELETE /v1/knowledge-bases/:name', { need: 'workflows:write' }],
  ['GET /v1/knowledge-bases/:name/documents', { need: 'runs:read' }],
  ['POST /v1/knowledge-bases/:name/documents', { need: 'workflows:write' }],
  ['GET /v1/knowledge-bases/:name/documents/:documentId', { need: 'runs:read' }],
  ['DELETE /v1/knowledge-bases/:name/documents/:documentId', { need: 'workflows:write' }],
  // A search is a read, but every POST needs more than reading (a run that searches needs runs:write too).
  ['POST /v1/knowledge-bases/:name/query', { need: 'runs:write' }],
  // Requests for a person.
  ['GET /v1/requests', { need: 'runs:read' }],
  ['GET /v1/runs/:id/requests', { need: 'runs:read', run: 'id' }],
  ['POST /v1/runs/:id/requests/:requestId/respond', { need: 'requests:answer', run: 'id' }],
  // Administration: keys, tenants, the audit log.
  ['GET /v1/keys', { need: 'admin' }],
  ['POST /v1/keys', { need: 'admin' }],
  ['GET /v1/keys/:keyId', { need: 'admin' }],
  ['DELETE /v1/keys/:keyId', { need: 'admin' }],
  ['GET /v1/tenants', { need: 'admin' }],
  ['POST /v1/tenants', { need: 'admin' }],
  ['GET /v1/tenants/:tenant', { need: 'admin' }],
  ['PUT /v1/tenants/:tenant/quotas', { need: 'admin' }],
  ['GET /v1/audit', { need: 'admin' }],
  // The Model Context Protocol: workflows as tools. Stateless: only POST. Each method needs its own scope on top
  // (`scopeOfJsonRpcMethod`: tools/call needs runs:write), checked by the controller once the body is read.
  ['POST /v1/mcp', { need: 'runs:read' }],
  ['GET /v1/mcp', { need: 'runs:read' }],
  ['DELETE /v1/mcp', { need: 'runs:read' }],
  // A2A: each workflow an agent, with its card; message/send, message/stream and tasks/cancel need runs:write (`scopeOfJsonRpcMethod`).
  ['GET /v1/a2a/:name/.well-known/agent-card.json', { need: 'runs:read' }],
  ['POST /v1/a2a/:name', { need: 'runs:read' }],
  // AG-UI: a RunAgentInput starts (or resumes) a run of the workflow, answered as AG-UI events.
  ['POST /v1/ag-ui/:name', { need: 'runs:write' }],
  // The AI SDK's chat transport: a chat's message runs on its thread; a reloaded page resumes the answer.
  ['POST /v1/chat/:name', { need: 'runs:write' }],
  ['GET /v1/chat/:name/:chatId/stream', { need: 'runs:read' }],
]);

/** The table's key for a route: its method and Fastify's path pattern (`HEAD` is its `GET`). */
export function routeKey(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url}`;
}

/** Routes outside the API (the console's files, health, metrics) need no credentials. */
export function isApiRoute(url: string): boolean {
  return url === '/v1' || url.startsWith('/v1/');
}
