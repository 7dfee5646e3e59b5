// tedious helpers for the conformance tests: connect with a given encryption setup, run a batch or execSql and
// collect rows, messages and the completion, all as promises driven by tedious's own events.
import { Connection, Request, type ConnectionConfiguration } from 'tedious';
import { LOGIN } from './fake-engine';

export interface ConnectOptions {
  port: number;
  encrypt?: boolean | 'strict';
  trustServerCertificate?: boolean;
  ca?: string;
  user?: string;
  password?: string;
  database?: string;
  packetSize?: number;
}

export interface Collected {
  rows: Array<Array<{ value: unknown; metadata: { colName: string; type: { name: string } } }>>;
  rowCount: number | undefined;
  infos: Array<{ number: number; message: string; lineNumber: number; class: number }>;
}

export function configFor(options: ConnectOptions): ConnectionConfiguration {
  return {
    server: '127.0.0.1',
    authentication: { type: 'default', options: { userName: options.user ?? LOGIN.user, password: options.password ?? LOGIN.password } },
    options: {
      port: options.port,
      database: options.database ?? LOGIN.database,
      encrypt: options.encrypt ?? false,
      trustServerCertificate: options.trustServerCertificate ?? false,
      ...(options.ca ? { cryptoCredentialsDetails: { ca: options.ca }, serverName: 'localhost' } : {}),
      ...(options.packetSize ? { packetSize: options.packetSize } : {}),
      connectTimeout: 10_000,
      requestTimeout: 0,
      cancelTimeout: 10_000,
    },
  };
}

/**
 * Connect; rejects with tedious's ConnectionError when the login or TLS fails. The server's ERROR tokens seen
 * during login (tedious's `errorMessage` events) are attached as `serverErrors` (the ConnectionError has no number).
 */
export function connect(options: ConnectOptions): Promise<Connection> {
  const connection = new Connection(configFor(options));
  const serverErrors: Array<{ number: number; message: string; class: number }> = [];
  const onErrorMessage = (token: { number: number; message: string; class: number }): void => {
    serverErrors.push({ number: token.number, message: token.message, class: token.class });
  };
  connection.on('errorMessage', onErrorMessage);
  return new Promise((resolve, reject) => {
    connection.connect((error) => {
      connection.off('errorMessage', onErrorMessage);
      if (error) {
        connection.close();
        reject(Object.assign(error, { serverErrors }));
      } else resolve(connection);
    });
  });
}

export function close(connection: Connection): Promise<void> {
  return new Promise((resolve) => {
    if ((connection as unknown as { closed?: boolean }).closed) return resolve();
    connection.once('end', () => resolve());
    connection.close();
  });
}

function collect(connection: Connection, build: (done: (error: Error | null | undefined, rowCount?: number) => void) => Request, send: (request: Request) => void): Promise<Collected> {
  const collected: Collected = { rows: [], rowCount: undefined, infos: [] };
  const onInfo = (info: { number: number; message: string; lineNumber: number; class: number }): void => {
    collected.infos.push(info);
  };
  connection.on('infoMessage', onInfo);
  return new Promise((resolve, reject) => {
    const request = build((error, rowCount) => {
      connection.off('infoMessage', onInfo);
      collected.rowCount = rowCount;
      if (error) reject(Object.assign(error, { collected }));
      else resolve(collected);
    });
    request.on('row', (columns) => collected.rows.push(columns));
    send(request);
  });
}

export function batch(connection: Connection, sql: string): Promise<Collected> {
  return collect(connection, (done) => new Request(sql, done), (request) => connection.execSqlBatch(request));
}

export function execSql(connection: Connection, sql: string, addParameters: (request: Request) => void): Promise<Collected> {
  return collect(
    connection,
    (done) => {
      const request = new Request(sql, done);
      addParameters(request);
      return request;
    },
    (request) => connection.execSql(request),
  );
}
