import type { NodeSpec } from './definition-types';

/**
 * The edge handles a node emits, as a type: a condition's `true`/`false`, a router's declared routes
 * (and its default), a human step's `rejected` and, with a wait limit, `timeout`, an agent's the same
 * once it asks for approval; nothing for a fail node; `default` for the rest. The same rules as the
 * engine's `handlesOf`, in `handlesOf` below at run time.
 */
export type HandlesOf<S> = S extends { readonly type: 'condition' }
  ? 'true' | 'false'
  : S extends { readonly type: 'router'; readonly routes: readonly (infer R)[] }
    ? | (R extends { readonly handle: infer H extends string } ? H : never)
      | (S extends { readonly default: infer D extends string } ? D : never)
    : S extends { readonly type: 'fail' }
      ? never
      : S extends { readonly type: 'human' }
        ? 'default' | 'rejected' | (S extends { readonly timeout_ms: number } ? 'timeout' : never)
        : S extends { readonly type: 'agent' }
          ? AgentHandles<S>
          : 'default';

type AgentHandles<S> = S extends { readonly approval: infer A }
  ? A extends false
    ? 'default'
    : 'default' | 'rejected' | (S extends { readonly approval_timeout_ms: number } ? 'timeout' : never)
  : 'default';

export function handlesOf(spec: NodeSpec): readonly string[] {
  switch (spec.type) {
    case 'condition':
      return ['true', 'false'];
    case 'router':
      return [...spec.routes.map((r) => r.handle), ...(spec.default !== undefined ? [spec.default] : [])];
    case 'fail':
      return [];
    case 'human':
      return spec.timeout_ms !== undefined ? ['default', 'rejected', 'timeout'] : ['default', 'rejected'];
    case 'agent':
      if (spec.approval === undefined || spec.approval === false) return ['default'];
      return spec.approval_timeout_ms !== undefined ? ['default', 'rejected', 'timeout'] : ['default', 'rejected'];
    default:
      return ['default'];
  }
}
