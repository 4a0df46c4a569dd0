import { sql, type RawBuilder } from 'kysely';

/**
 * The oldest `saved_at` / `stored_at` still within the TTL. Taken from the database's clock, so
 * the projection, the queries and the purge of every replica agree on what has expired.
 */
export function expiryCutoff(ttlHours: number): RawBuilder<Date> {
  return sql<Date>`now() - make_interval(secs => ${ttlHours * 3_600})`;
}
