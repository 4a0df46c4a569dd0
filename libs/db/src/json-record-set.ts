import { sql, type RawBuilder } from 'kysely';

/** A column's Postgres type; a `jsonb` column's value is given as JSON text. */
export type RecordSetColumns<Row> = { readonly [K in keyof Row & string]: string };

const COLUMN_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * Rows handed to Postgres as one JSON parameter and read back row by row, for an
 * `insert … select`: a batch of a thousand rows is one bind parameter and one short statement,
 * not a thousand `values` tuples the query builder renders and Postgres parses anew for each
 * batch (the recorder's top frames). `columns` names each column's type in its order. A `jsonb`
 * column's value is JSON text (as the row mappers make it): it goes into the parameter as it is,
 * parsed once, and `null` stays JSON null while a missing value is SQL NULL.
 */
export function jsonRecordSet<Row extends Record<string, unknown>>(rows: readonly Row[], columns: RecordSetColumns<Row>): RawBuilder<Row> {
  const names = recordSetNames(columns);
  for (const name of names) if (!COLUMN_NAME.test(name)) throw new Error(`not a column name: ${name}`);
  const read = names.map((name) =>
    columns[name] === 'jsonb' ? sql.raw(`r.e->'${name}'`) : sql.raw(`(r.e->>'${name}')::${columns[name]}`),
  );
  return sql<Row>`select ${sql.join(read)} from jsonb_array_elements(${rowsJson(rows, columns)}::jsonb) as r(e)`;
}

/** The column names of a record set, in its order (an insert's column list). */
export function recordSetNames<Row>(columns: RecordSetColumns<Row>): Array<keyof Row & string> {
  return Object.keys(columns) as Array<keyof Row & string>;
}

/** The rows as one JSON array: each value as JSON, a jsonb column's text as it is, an absent or null one left out. */
function rowsJson<Row extends Record<string, unknown>>(rows: readonly Row[], columns: RecordSetColumns<Row>): string {
  const names = recordSetNames(columns);
  const keys = names.map((name) => `"${name}":`);
  const jsonb = names.map((name) => columns[name] === 'jsonb');
  const parts = rows.map((row) => {
    const fields: string[] = [];
    names.forEach((name, i) => {
      const value = row[name];
      if (value === undefined || value === null) return;
      fields.push(keys[i] + (jsonb[i] ? String(value) : JSON.stringify(value)));
    });
    return `{${fields.join(',')}}`;
  });
  return `[${parts.join(',')}]`;
}
