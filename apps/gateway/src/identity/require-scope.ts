import { SpindleError, type Principal, type Scope } from '@spindle/contracts';

/** Refuses (403 `forbidden`) credentials without `scope`; `what` names what needed it when it is not the route. */
export function requireScope(principal: Principal, scope: Scope, what = 'this'): void {
  if (!principal.scopes.has(scope))
    throw new SpindleError('forbidden', `${what} needs the "${scope}" scope, which these credentials do not have`);
}
