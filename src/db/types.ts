// What probes, the XE layer and the profiler need from a connection, without importing tedious.
// src/db/ implements it over tedious; tests may implement it over recorded rows.

/** One row keyed by column name, values as tedious returns them (bigint columns arrive as strings). */
export type Row = Record<string, unknown>;

export type ParameterType = 'int' | 'bigint' | 'smallint' | 'bit' | 'nvarchar' | 'varchar' | 'float' | 'datetime2';

export interface QueryParameter {
  /** Without the '@'. */
  name: string;
  type: ParameterType;
  value: string | number | boolean | bigint | Date | null;
}

export interface SqlClient {
  /** Runs one statement (sp_executesql when parameters are given, else a plain batch) and returns every row of every result set. */
  query(sql: string, parameters?: readonly QueryParameter[]): Promise<Row[]>;
  /** Runs a statement for its effect; resolves when it completes. */
  execute(sql: string, parameters?: readonly QueryParameter[]): Promise<void>;
}

/** A server error as the driver reported it (tedious RequestError fields). */
export interface SqlErrorInfo {
  number: number;
  state: number;
  class: number;
  message: string;
  lineNumber: number;
  procName?: string;
}
