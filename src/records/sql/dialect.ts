/**
 * Every way the SQL written once for both stores differs between SQLite and
 * PostgreSQL, in one place, each with its reason. The shared SQL (this folder,
 * import/checks.ts, the migrations) asks a SqlDialect wherever the two differ; what
 * only one dialect does (PostgreSQL's SKIP LOCKED claim and COPY staging, SQLite's
 * writer thread) stays in its own folder, sqlite/ or postgres/.
 */

/** The dialects, by name (migrations.ts keys per-dialect DDL by it). */
export type DialectName = 'sqlite' | 'postgres';

export interface SqlDialect {
  readonly name: DialectName;
  /** Placeholder for the n-th parameter (1-based): `?` or `$n`. */
  param(n: number): string;
  /** SQL written with `?` placeholders (which it has nowhere else, not in literals either), in this dialect's. */
  placeholders(sql: string): string;
  /**
   * Case-folded text for "name contains". SQLite's lower() folds ASCII only, so the
   * SQLite store registers a JS function (String#toLowerCase, as the query text is
   * folded: sqlite/search.ts); PostgreSQL's lower() folds by the database's LC_CTYPE
   * (Unicode under a UTF-8 locale such as C.UTF-8 or en_US.UTF-8).
   */
  fold(expr: string): string;
  /** Position of a substring (1-based, 0 when absent): instr() / strpos(). */
  position(haystack: string, needle: string): string;
  /**
   * Text in code-point order. SQLite's default BINARY collation compares UTF-8 bytes,
   * which is code-point order; PostgreSQL's default collation is the locale's, so ask
   * for "C" explicitly: both stores then page through records in the same order.
   */
  binary(expr: string): string;
  /**
   * One custom field's value out of records.fields (JSON text, migration 19), `key` making
   * a new parameter holding its JSON path (jsonPath) for each place it is used: as text (NULL where it is absent), or as
   * a number (NULL where it is absent or not a number, so a changed catalogue cannot fail a search).
   */
  fieldValue(column: string, key: () => string, numeric: boolean): string;
  /** The JSON path parameter for fieldValue: SQLite's `$.name`, PostgreSQL's bare key. */
  jsonPath(name: string): string;
  /** A list parameter for `IN`: SQLite has no arrays (json_each over JSON text); PostgreSQL takes text[]. */
  inList(n: number): string;
  listValue(values: string[]): unknown;
  /** A JSON object from `'key', value, ...` pairs (nestable): json_object() / json_build_object(). */
  jsonObject(pairs: string): string;
  /** A JSON value as text, for a TEXT column: SQLite's JSON already is text; PostgreSQL casts. */
  jsonText(expr: string): string;
}

export const SQLITE: SqlDialect = {
  name: 'sqlite',
  param: () => '?',
  placeholders: (sql) => sql,
  fold: (e) => `labelmaker_fold(${e})`,
  position: (h, n) => `instr(${h}, ${n})`,
  binary: (e) => e,
  // json_extract gives a JSON number as an SQLite number and a JSON string as TEXT.
  fieldValue: (c, k, numeric) => `(CASE WHEN json_type(${c}, ${k()}) ${numeric ? `IN ('integer', 'real')` : `= 'text'`} THEN json_extract(${c}, ${k()}) END)`,
  jsonPath: (name) => `$.${name}`,
  inList: () => '(SELECT value FROM json_each(?))',
  listValue: (values) => JSON.stringify(values),
  jsonObject: (pairs) => `json_object(${pairs})`,
  jsonText: (e) => e,
};

export const POSTGRES: SqlDialect = {
  name: 'postgres',
  param: (n) => `$${n}`,
  placeholders: (sql) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  },
  fold: (e) => `lower(${e})`,
  position: (h, n) => `strpos(${h}, ${n})`,
  binary: (e) => `${e} COLLATE "C"`,
  fieldValue: (c, k, numeric) => {
    const key = k(); // $n may be named twice
    return numeric
      ? `(CASE WHEN jsonb_typeof(${c}::jsonb -> ${key}::text) = 'number' THEN (${c}::jsonb ->> ${key}::text)::double precision END)`
      : `(CASE WHEN jsonb_typeof(${c}::jsonb -> ${key}::text) = 'string' THEN (${c}::jsonb ->> ${key}::text) COLLATE "C" END)`;
  },
  jsonPath: (name) => name,
  inList: (n) => `(SELECT unnest($${n}::text[]))`,
  listValue: (values) => values,
  jsonObject: (pairs) => `json_build_object(${pairs})`,
  jsonText: (e) => `(${e})::text`,
};
