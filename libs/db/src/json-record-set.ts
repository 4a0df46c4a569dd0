import { sql, type RawBuilder } from 'kysely';

/** A column's Postgres type; a `jsonb` column's value is given as JSON text. */
export type RecordSetColumns<Row> = { readonly [K in keyof Row & string]: string };

/**
 * Rows handed to Postgres as one JSON parameter and read back as a record set, for an
 * `insert … select`: a batch of a thousand rows is one bind parameter and one short statement,
 * not a thousand `values` tuples the query builder renders and Postgres parses anew for each
 * batch (the recorder's top frames). `columns` names each column's type in its order; a `jsonb`
 * column's value is JSON text (as the row mappers make it), read as text and cast.
 */
export function jsonRecordSet<Row extends Record<string, unknown>>(rows: readonly Row[], columns: RecordSetColumns<Row>): RawBuilder<Row> {
  const names = Object.keys(columns) as Array<keyof Row & string>;
  const read = names.map((name) => (columns[name] === 'jsonb' ? sql`r.${sql.id(name)}::jsonb` : sql`r.${sql.id(name)}`));
  const declared = names.map((name) => sql`${sql.id(name)} ${sql.raw(columns[name] === 'jsonb' ? 'text' : columns[name])}`);
  // A key a row lacks (undefined) is NULL; a key the columns do not name is not read.
  const json = JSON.stringify(rows);
  return sql<Row>`select ${sql.join(read)} from jsonb_to_recordset(${json}::jsonb) as r(${sql.join(declared)})`;
}

/** The column names of a record set, in its order (an insert's column list). */
export function recordSetNames<Row>(columns: RecordSetColumns<Row>): Array<keyof Row & string> {
  return Object.keys(columns) as Array<keyof Row & string>;
}
