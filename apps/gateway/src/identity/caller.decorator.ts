import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { SpindleError, type Principal } from '@spindle/contracts';
import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook on every `/v1` route that is not public. */
    principal?: Principal;
  }
}

/** The authenticated principal of the request (the hook has run: a route without one is a bug, answered 401). */
export const Caller = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new SpindleError('unauthenticated', 'no credentials');
  return principal;
});
