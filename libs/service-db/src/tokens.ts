/** The service's own Kysely database (its schema, migrated). */
export const DATABASE = Symbol('DATABASE');
