/**
 * The endpoints that speak JSON-RPC: a body that is not JSON is a JSON-RPC parse error there
 * (`-32700`), not the problem+json every other route answers.
 */
const JSON_RPC_PATH = /^\/v1\/(mcp|a2a\/[^/?]+)\/?(\?|$)/;

export function isJsonRpcEndpoint(url: string): boolean {
  return JSON_RPC_PATH.test(url);
}

/** What the body parser hands a JSON-RPC endpoint for a body that did not parse. */
export const UNPARSABLE_BODY: unique symbol = Symbol('unparsable JSON-RPC body');

/** How a scope refusal names the JSON-RPC message that needed it. */
export const methodName = (method: string | undefined): string => (method === undefined ? 'an answer' : `"${method}"`);
