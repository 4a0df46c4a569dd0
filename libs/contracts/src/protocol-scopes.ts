import type { Scope } from './identity';

/**
 * The scope each method of the JSON-RPC protocols needs: reading a task or the tool list is a
 * read, like `GET /v1/runs/{id}`; what starts, answers or cancels a run needs `runs:write`. A
 * method not listed (a later version's) needs `runs:write`, so nothing new is open to a reader.
 * A message without a method (an answer to the server's question) is part of a call the client
 * made with `runs:write`, and needs it too.
 */
const METHOD_SCOPES: Readonly<Record<'mcp' | 'a2a', Readonly<Record<string, Scope>>>> = {
  mcp: {
    initialize: 'runs:read',
    ping: 'runs:read',
    'notifications/initialized': 'runs:read',
    'tools/list': 'runs:read',
    'tasks/get': 'runs:read',
    'tasks/result': 'runs:read',
    'tasks/list': 'runs:read',
    'tools/call': 'runs:write',
    'tasks/cancel': 'runs:write',
    'notifications/cancelled': 'runs:write',
  },
  a2a: {
    'tasks/get': 'runs:read',
    'tasks/resubscribe': 'runs:read',
    'tasks/pushNotificationConfig/get': 'runs:read',
    'tasks/pushNotificationConfig/list': 'runs:read',
    'message/send': 'runs:write',
    'message/stream': 'runs:write',
    'tasks/cancel': 'runs:write',
    'tasks/pushNotificationConfig/set': 'runs:write',
    'tasks/pushNotificationConfig/delete': 'runs:write',
  },
};

export type JsonRpcProtocol = keyof typeof METHOD_SCOPES;

/** The scope a JSON-RPC message of `protocol` needs (its route needs only `runs:read`). */
export function scopeOfJsonRpcMethod(protocol: JsonRpcProtocol, method: string | undefined): Scope {
  if (method === undefined || !Object.hasOwn(METHOD_SCOPES[protocol], method)) return 'runs:write';
  return METHOD_SCOPES[protocol][method]!;
}

/** Every method the table names, with its scope (for the docs and their test). */
export const jsonRpcMethodScopes = (protocol: JsonRpcProtocol): ReadonlyArray<readonly [string, Scope]> =>
  Object.entries(METHOD_SCOPES[protocol]);
