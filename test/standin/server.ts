// Starts the stand-in's TDS listener on 127.0.0.1: one TdsConnection per socket over a shared Engine, a TLS
// identity generated at start, and a close() that ends every socket and the listener.
import { createServer, type Server, type Socket } from 'node:net';
import type { Engine } from './engine';
import { sharedStandinCertificates } from './tds/certificates';
import { TdsConnection, type ConnectionStats } from './tds/connection';
import type { EncryptionPolicy } from './tds/prelogin';

export interface StandinServerOptions {
  engine: Engine;
  /** 0 (default) = a free port chosen by the OS. */
  port?: number;
  host?: '127.0.0.1';
  tls?: {
    /**
     * 'optional' (default): TLS when the client asks (tedious encrypt: true), clear text when it does not.
     * 'required': clients that refuse encryption are turned away. 'loginOnly': a client that says ENCRYPT_OFF
     * gets TLS for LOGIN7 only.
     */
    encryption?: EncryptionPolicy;
  };
  /** Diagnostics sink (default: silent). */
  log?: (message: string) => void;
  /**
   * Simulated network round trip in ms (default 0): every response (PRELOGIN, login, each request) leaves this long
   * after its request arrived, as if the server were that far away. Changeable later through `server.rttMs`.
   */
  rttMs?: number;
}

export interface StandinServer {
  port: number;
  host: string;
  /** Open client connections right now. */
  readonly connections: number;
  /** Simulated round trip (ms) for responses from now on. */
  rttMs: number;
  /** Every connection accepted since start (or the last reset): its app name, spid and request count. Copies. */
  connectionStats(): ConnectionStats[];
  /** Forget closed connections and zero the request counts of open ones. */
  resetConnectionStats(): void;
  /** PEM of the CA that signed the server certificate: tedious `options.cryptoCredentialsDetails: { ca }`. */
  caPem: string;
  /** PEM of the server certificate (CN localhost, SAN localhost + 127.0.0.1). */
  certPem: string;
  close(): Promise<void>;
}

export async function startStandinServer(options: StandinServerOptions): Promise<StandinServer> {
  const host = options.host ?? '127.0.0.1';
  const certificates = await sharedStandinCertificates();
  const log = options.log ?? (() => undefined);
  const open = new Set<TdsConnection>();
  const sockets = new Set<Socket>();
  let rttMs = options.rttMs ?? 0;
  let stats: ConnectionStats[] = [];
  let nextId = 1;
  const server: Server = createServer((socket) => {
    const connectionStats: ConnectionStats = { id: nextId++, appName: null, spid: null, requests: 0, open: true };
    stats.push(connectionStats);
    socket.once('close', () => (connectionStats.open = false));
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const connection = new TdsConnection(socket, {
      engine: options.engine,
      certificates,
      encryption: options.tls?.encryption ?? 'optional',
      preloginVersion: { major: 16, minor: 0, build: 1000 },
      serverName: 'STANDIN',
      log,
      rttMs: () => rttMs,
      stats: connectionStats,
    });
    open.add(connection);
    void connection.closed.then(() => open.delete(connection));
  });
  server.on('error', (error) => log(`listener error: ${error.message}`));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let closing: Promise<void> | undefined;
  return {
    port,
    host,
    get connections() {
      return sockets.size;
    },
    get rttMs() {
      return rttMs;
    },
    set rttMs(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`rttMs must be a non-negative number, got ${ms}`);
      rttMs = ms;
    },
    connectionStats() {
      return stats.map((c) => ({ ...c }));
    },
    resetConnectionStats() {
      stats = stats.filter((c) => c.open);
      for (const c of stats) c.requests = 0;
    },
    caPem: certificates.caPem,
    certPem: certificates.certPem,
    close() {
      closing ??= (async () => {
        const listenerClosed = new Promise<void>((resolve) => server.close(() => resolve()));
        const pending = [...open].map((connection) => connection.closed);
        for (const connection of open) connection.destroy();
        await Promise.all(pending);
        await listenerClosed;
      })();
      return closing;
    },
  };
}
