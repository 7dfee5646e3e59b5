// One client connection of the stand-in: PRELOGIN and encryption (MS-TDS 2.2.6.5), TLS inside PRELOGIN or TDS 8.0
// strict TLS, LOGIN7 (2.2.6.4), then requests one at a time, with ATTENTION (2.2.1.7) handled out of band.
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { TLSSocket, createSecureContext, type SecureContext } from 'node:tls';
import type { Engine, ExecRequest, SessionHandle } from '../engine';
import { TdsProtocolError } from './bytes';
import type { StandinCertificates } from './certificates';
import { parseLogin7 } from './login7';
import { DEFAULT_PACKET_SIZE, loginFailureTokens, loginSuccessTokens, negotiatePacketSize } from './login-response';
import { MessageAssembler, PacketType, type TdsMessage } from './packet';
import { Encrypt, buildPreloginResponse, decideEncryption, parsePrelogin, type EncryptionPolicy } from './prelogin';
import { parseRpc, parseSqlBatch, parseTransactionManager } from './requests';
import { runRequest } from './request-runner';
import { ResponseWriter } from './response-writer';
import { PreloginTlsBridge } from './tls-bridge';
import { DoneStatus, TokenType, doneToken, messageToken } from './tokens';

export interface TdsConnectionOptions {
  engine: Engine;
  certificates: StandinCertificates;
  encryption: EncryptionPolicy;
  /** Version announced in PRELOGIN, before the engine's login result is known. */
  preloginVersion: { major: number; minor: number; build: number };
  /** Server name on messages sent before login succeeds. */
  serverName: string;
  log(message: string): void;
  /** Simulated network round trip (ms) added before each response: PRELOGIN, LOGIN7 and every request. */
  rttMs?: () => number;
  /** Counters this connection updates (the server's connectionStats()). */
  stats?: ConnectionStats;
}

/** What one client connection asked of the stand-in (for tests and the bench to count round trips). */
export interface ConnectionStats {
  /** 1-based, in accept order. */
  id: number;
  /** LOGIN7 application name (e.g. "Durability Lens (monitor)"), null before login. */
  appName: string | null;
  spid: number | null;
  /** Requests (SQL batch, RPC, transaction manager) received after login; attentions are not counted. */
  requests: number;
  open: boolean;
}

/** Waits out the simulated round trip: the response leaves rtt ms after the request arrived. */
function roundTrip(ms: number): Promise<void> | undefined {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined;
}

/** TLS record type 22 (handshake): a TDS 8.0 client opens with a ClientHello instead of a PRELOGIN packet. */
const TLS_HANDSHAKE_RECORD = 0x16;

export class TdsConnection {
  private transport: Duplex;
  private assembler = new MessageAssembler();
  private readonly queue: TdsMessage[] = [];
  private waiter: ((message: TdsMessage | null) => void) | undefined;
  private phase: 'first-bytes' | 'prelogin' | 'login' | 'ready' = 'first-bytes';
  private packetSize = DEFAULT_PACKET_SIZE;
  private session: SessionHandle | undefined;
  private serverName: string;
  private encrypted = false;
  private current: AbortController | undefined;
  /** A request message has arrived (queued or handed to the serving loop) but is not being served yet. */
  private requestWaiting = false;
  /** An attention arrived for that waiting request: it is cancelled as soon as it starts (MS-TDS 2.2.1.7). */
  private attentionWaiting = false;
  private bridge: PreloginTlsBridge | undefined;
  private isClosed = false;
  private readonly onData = (chunk: Buffer): void => this.receive(chunk);
  readonly closed: Promise<void>;

  constructor(
    private readonly socket: Socket,
    private readonly options: TdsConnectionOptions,
  ) {
    this.transport = socket;
    this.serverName = options.serverName;
    socket.setNoDelay(true);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.once('close', () => this.onClose());
    socket.on('error', (error) => options.log(`socket error: ${error.message}`));
    socket.on('data', this.onData);
    void this.run().catch((error: unknown) => this.fail(error));
  }

  /** Destroy at once (server close, or the engine's dropConnection fault). */
  destroy(): void {
    this.transport.destroy();
    this.socket.destroy();
  }

  private onClose(): void {
    this.isClosed = true;
    this.current?.abort(new Error('connection closed'));
    this.waiter?.(null);
    this.waiter = undefined;
    if (this.session) {
      const session = this.session;
      this.session = undefined;
      this.options.engine.logout(session);
    }
  }

  private fail(error: unknown): void {
    if (!this.isClosed) this.options.log(`closing connection: ${error instanceof Error ? error.message : String(error)}`);
    this.destroy();
  }

  private receive(chunk: Buffer): void {
    if (this.phase === 'first-bytes') {
      this.phase = 'prelogin';
      if (chunk[0] === TLS_HANDSHAKE_RECORD) {
        // A server before 2022 does not speak TDS 8.0: to it a TLS ClientHello is not a TDS packet, and a strict client's
        // connection fails ("If the server doesn't support TDS 8.0, TLS encryption, the connection will fail",
        // SqlConnectionEncryptOption.Strict; https://learn.microsoft.com/sql/relational-databases/security/networking/tds-8).
        if (this.options.engine.supportsTds8?.() === false) {
          this.fail(new TdsProtocolError('TLS handshake before PRELOGIN (TDS 8.0 strict) from a client, but the simulated version predates TDS 8.0'));
          return;
        }
        void this.startTls(new PreloginTlsBridge(this.socket, 'raw', chunk), true);
        return;
      }
      if (chunk[0] !== PacketType.PRELOGIN) {
        // Not a TDS client (an HTTP probe, a port scanner): waiting for a packet that never completes helps no one.
        this.fail(new TdsProtocolError(`first byte 0x${(chunk[0] ?? 0).toString(16)} is neither PRELOGIN nor a TLS handshake`));
        return;
      }
    }
    let messages: TdsMessage[];
    try {
      messages = this.assembler.push(chunk);
    } catch (error) {
      this.fail(error); // framing is lost: nothing later on this socket can be trusted
      return;
    }
    for (const message of messages) {
      if (message.type === PacketType.ATTENTION) {
        this.onAttention();
        continue;
      }
      if (this.phase === 'ready') this.requestWaiting = true;
      if (this.waiter) {
        const wake = this.waiter;
        this.waiter = undefined;
        wake(message);
      } else this.queue.push(message);
    }
  }

  private nextMessage(): Promise<TdsMessage | null> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    if (this.isClosed) return Promise.resolve(null);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** Move reading and writing to a TLS server socket over `bridge`; strict = TDS 8.0 (TLS 1.3 allowed, ALPN tds/8.0). */
  private startTls(bridge: PreloginTlsBridge, strict: boolean): Promise<void> {
    this.socket.off('data', this.onData);
    this.bridge = bridge;
    const context: SecureContext = createSecureContext({
      cert: this.options.certificates.certPem,
      key: this.options.certificates.keyPem,
      // Inside PRELOGIN the handshake must finish in request/response rounds; TLS 1.3's post-handshake tickets
      // would break that, so TDS 7.x gets TLS 1.2 (as SQL Server does). TDS 8.0 may use 1.3.
      maxVersion: strict ? 'TLSv1.3' : 'TLSv1.2',
    });
    const tls = new TLSSocket(bridge, { isServer: true, secureContext: context, ...(strict ? { ALPNProtocols: ['tds/8.0'] } : {}) });
    this.transport = tls;
    this.assembler = new MessageAssembler();
    this.encrypted = true;
    tls.on('data', this.onData);
    tls.on('error', (error) => this.fail(new Error(`TLS: ${error.message}`)));
    tls.on('close', () => this.socket.destroy());
    return new Promise((resolve) => {
      tls.once('secure', () => {
        this.options.log(`TLS ${tls.getProtocol() ?? '?'} established (${strict ? 'TDS 8.0 strict' : 'inside PRELOGIN'})`);
        resolve();
      });
      // A failed handshake closes the connection; resolve so run() moves on and finds no next message.
      tls.once('close', () => resolve());
    });
  }

  /** Login-only encryption done: continue in clear text on the raw socket. */
  private stopTls(): void {
    const tls = this.transport;
    tls.off('data', this.onData);
    tls.removeAllListeners('close');
    this.bridge?.release();
    tls.destroy();
    this.transport = this.socket;
    this.assembler = new MessageAssembler();
    this.encrypted = false;
    this.socket.on('data', this.onData);
    this.options.log('login-only encryption: LOGIN7 was read over TLS, continuing in clear text');
  }

  private writeMessage(tokens: Buffer[], type: number = PacketType.TABULAR_RESULT): ResponseWriter {
    const writer = new ResponseWriter(() => this.transport, () => this.packetSize, type);
    for (const token of tokens) writer.write(token);
    writer.end();
    return writer;
  }

  private async run(): Promise<void> {
    const prelogin = await this.nextMessage();
    if (!prelogin) return;
    if (prelogin.type !== PacketType.PRELOGIN) throw new TdsProtocolError(`expected PRELOGIN, got packet type 0x${prelogin.type.toString(16)}`);
    const request = parsePrelogin(prelogin.payload);
    // Already inside TLS (TDS 8.0 strict): nothing more to negotiate.
    const decision = this.encrypted ? { answer: Encrypt.NOT_SUP, tls: 'none' as const } : decideEncryption(request.encryption, this.options.encryption);
    await roundTrip(this.options.rttMs?.() ?? 0);
    this.writeMessage([buildPreloginResponse({ version: this.options.preloginVersion, encryption: decision.answer })]);
    if (decision.tls === 'refuse') {
      this.socket.end();
      return;
    }
    if (decision.tls === 'session' || decision.tls === 'loginOnly') await this.startTls(new PreloginTlsBridge(this.socket, 'handshake'), false);

    this.phase = 'login';
    const loginMessage = await this.nextMessage();
    if (!loginMessage) return;
    if (loginMessage.type !== PacketType.LOGIN7) throw new TdsProtocolError(`expected LOGIN7, got packet type 0x${loginMessage.type.toString(16)}`);
    if (decision.tls === 'loginOnly') this.stopTls();
    if (!(await this.login(loginMessage))) return;

    this.phase = 'ready';
    for (;;) {
      const message = await this.nextMessage();
      if (!message) return;
      if (message.ignore) {
        // MS-TDS 2.2.3.1.2 IGNORE: the client abandoned this message; an attention waiting for it is acknowledged.
        this.requestWaiting = this.queue.length > 0;
        if (this.attentionWaiting && !this.requestWaiting) {
          this.attentionWaiting = false;
          this.writeMessage([doneToken(TokenType.DONE, DoneStatus.ATTN)]);
        }
        continue;
      }
      if ((await this.serve(message)) === 'dropped') return;
    }
  }

  private async login(message: TdsMessage): Promise<boolean> {
    const login = parseLogin7(message.payload);
    await roundTrip(this.options.rttMs?.() ?? 0);
    const refuse = (text: string): boolean => {
      this.writeMessage(loginFailureTokens({ number: 18456, state: 1, class: 14, message: text, lineNumber: 1 }, this.serverName));
      this.socket.end();
      return false;
    };
    if (login.tdsVersion < 0x72000000) return refuse(`The stand-in speaks TDS 7.2 or later; the client asked for 0x${login.tdsVersion.toString(16)}.`);
    if (login.integratedSecurity) return refuse('Login failed: the stand-in accepts SQL logins only (no integrated security).');
    const result = await this.options.engine.login({
      userName: login.userName,
      password: login.password,
      database: login.database,
      appName: login.appName,
      hostName: login.hostName,
      encrypted: this.encrypted,
      clientPid: login.clientPid,
      packetSize: login.packetSize,
      tdsVersion: login.tdsVersion,
    });
    if (this.isClosed) {
      if (result.ok) this.options.engine.logout(result.session);
      return false;
    }
    if (!result.ok) {
      this.writeMessage(loginFailureTokens(result.error, this.serverName));
      this.socket.end(); // MS-TDS 3.3.5.2: a failed login ends the connection
      return false;
    }
    this.session = result.session;
    this.options.engine.onSessionKilled?.(result.session, () => this.destroy());
    if (this.options.stats) {
      this.options.stats.appName = login.appName;
      this.options.stats.spid = result.session.spid;
    }
    this.serverName = result.serverName;
    this.packetSize = negotiatePacketSize(login.packetSize);
    await this.writeMessage(loginSuccessTokens(result, this.packetSize)).ready();
    return true;
  }

  private parseRequest(message: TdsMessage): ExecRequest {
    switch (message.type) {
      case PacketType.SQL_BATCH:
        return parseSqlBatch(message.payload);
      case PacketType.RPC:
        return parseRpc(message.payload);
      case PacketType.TRANSACTION_MANAGER:
        return parseTransactionManager(message.payload);
      default:
        throw new TdsProtocolError(`packet type 0x${message.type.toString(16)} is not supported by the stand-in`);
    }
  }

  private async serve(message: TdsMessage): Promise<'dropped' | 'completed'> {
    // An attention that came in the same read as its request, or before the request was picked up, is for it.
    const cancelledBeforeStart = this.attentionWaiting;
    this.attentionWaiting = false;
    this.requestWaiting = this.queue.length > 0;
    let request: ExecRequest;
    try {
      request = this.parseRequest(message);
    } catch (error) {
      if (!(error instanceof TdsProtocolError)) throw error;
      // A malformed request: answer with an error and keep the connection, as the framing is still intact.
      const text = `stand-in could not parse the request: ${error.message}`;
      await this.writeMessage([messageToken('error', { number: 50000, state: 1, class: 16, message: text, lineNumber: 0 }, this.serverName), doneToken(TokenType.DONE, DoneStatus.ERROR)]).ready();
      if (cancelledBeforeStart) await this.writeMessage([doneToken(TokenType.DONE, DoneStatus.ATTN)]).ready();
      return 'completed';
    }
    const controller = new AbortController();
    if (cancelledBeforeStart) controller.abort(new Error('attention'));
    this.current = controller;
    if (this.options.stats) this.options.stats.requests++;
    try {
      // An attention during the simulated round trip aborts the signal; runRequest then acknowledges it.
      await roundTrip(this.options.rttMs?.() ?? 0);
      return await runRequest({
        engine: this.options.engine,
        session: this.session!,
        request,
        resetConnection: message.resetConnection,
        writer: new ResponseWriter(() => this.transport, () => this.packetSize),
        signal: controller.signal,
        serverName: this.serverName,
        dropConnection: () => this.destroy(),
      });
    } finally {
      this.current = undefined;
    }
  }

  private onAttention(): void {
    if (this.phase !== 'ready') return;
    if (this.current) {
      this.current.abort(new Error('attention'));
      return; // runRequest ends the response with DONE(ATTN)
    }
    // The request has arrived but not started (the attention came in the same read, or while the serving loop had
    // not picked it up yet): it is cancelled when it starts, and acknowledged then — never before its response.
    if (this.requestWaiting) {
      this.attentionWaiting = true;
      return;
    }
    // The request finished before the attention arrived: the client still waits for the acknowledgement.
    this.writeMessage([doneToken(TokenType.DONE, DoneStatus.ATTN)]);
  }
}
