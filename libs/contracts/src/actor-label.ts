import type { Actor } from './identity';

/**
 * How the console and the CLI name who did something: the actor's name (its id when it has none) and, when
 * a key's client said so, the person it acted for. Logs written before identity hold a bare string.
 */
export function actorLabel(actor: Actor | string | null | undefined): string {
  if (actor === null || actor === undefined) return '';
  if (typeof actor === 'string') return actor;
  const name = actor.name || actor.id;
  return actor.onBehalfOf ? `${name} on behalf of ${actor.onBehalfOf}` : name;
}
