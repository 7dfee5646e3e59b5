// Runs one client request through the engine and turns its Output items into tokens (MS-TDS 2.2.7) on one
// response message: results streamed row by row with backpressure, DONE status bits, and the attention
// acknowledgement (DONE with ATTN, MS-TDS 2.2.1.7) when the client cancelled.
import type { Engine, ExecRequest, Output, SessionHandle, SqlValue } from '../engine';
import { encodeResultSet } from './columns';
import type { ResponseWriter } from './response-writer';
import { DoneStatus, TokenType, doneToken, envChangeResetAck, envChangeToken, messageToken, returnStatusToken } from './tokens';

export interface RunRequestArgs {
  engine: Engine;
  session: SessionHandle;
  request: ExecRequest;
  resetConnection: boolean;
  writer: ResponseWriter;
  signal: AbortSignal;
  serverName: string;
  /** Destroy the socket now (the engine's dropConnection fault). */
  dropConnection(): void;
}

const ABORTED = Symbol('aborted');

/** Await `promise`, or stop waiting when the client cancels, so a model that ignores the signal cannot hang a cancel. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function closeQuietly(iterator: AsyncIterator<unknown> | Iterator<unknown>): void {
  try {
    void Promise.resolve(iterator.return?.()).catch(() => undefined);
  } catch {
    // a generator already running cannot be returned; it ends on its own once it sees the signal
  }
}

/** Returns 'dropped' when the engine asked to kill the connection, else 'completed'. */
export async function runRequest(args: RunRequestArgs): Promise<'completed' | 'dropped'> {
  const { writer, signal, request } = args;
  const isRpc = request.kind === 'rpc';
  let pendingDone: { type: number; status: number; rowCount: number } | undefined;
  let sawReturnStatus = false;
  let anyError = false;

  // A DONE is sent only when the next token is known, so its MORE bit can say whether more follows.
  const flushDone = (more: boolean): void => {
    if (!pendingDone) return;
    writer.write(doneToken(pendingDone.type, pendingDone.status | (more ? DoneStatus.MORE : 0), pendingDone.rowCount));
    pendingDone = undefined;
  };
  const emit = async (token: Buffer): Promise<void> => {
    flushDone(true);
    writer.write(token);
    await writer.ready();
  };

  const streamRows = async (rows: Iterable<SqlValue[]> | AsyncIterable<SqlValue[]>, encodeRow: (values: SqlValue[]) => Buffer): Promise<void> => {
    // The hot loop of large results: a sync source is read without a promise per row; an async one is raced
    // against the cancel so a stalled producer cannot delay the attention acknowledgement.
    if (Symbol.asyncIterator in rows) {
      const iterator = rows[Symbol.asyncIterator]();
      try {
        for (;;) {
          const step = await untilAborted(iterator.next(), signal);
          if (step === ABORTED || step.done || writer.closed) return;
          writer.write(encodeRow(step.value));
          if (writer.mustPause) await writer.ready();
        }
      } finally {
        closeQuietly(iterator);
      }
    }
    const iterator = rows[Symbol.iterator]();
    try {
      for (;;) {
        if (signal.aborted || writer.closed) return;
        const step = iterator.next();
        if (step.done) return;
        writer.write(encodeRow(step.value));
        if (writer.mustPause) await writer.ready();
      }
    } finally {
      closeQuietly(iterator);
    }
  };

  const handle = async (output: Output): Promise<'dropped' | undefined> => {
    switch (output.kind) {
      case 'resultSet': {
        const encoded = encodeResultSet(output.columns);
        await emit(encoded.metadata);
        await streamRows(output.rows, encoded.encodeRow);
        return undefined;
      }
      case 'done': {
        flushDone(true);
        // Inside an RPC every statement ends in DONEINPROC; the RPC itself ends in DONEPROC (added below).
        const type = isRpc || output.inProc ? TokenType.DONEINPROC : TokenType.DONE;
        const status = (output.rowCount !== undefined ? DoneStatus.COUNT : 0) | (output.error ? DoneStatus.ERROR : 0);
        if (output.error) anyError = true;
        pendingDone = { type, status, rowCount: output.rowCount ?? 0 };
        return undefined;
      }
      case 'info':
      case 'error':
        if (output.kind === 'error') anyError = true;
        await emit(messageToken(output.kind, output.message, args.serverName));
        return undefined;
      case 'returnStatus':
        sawReturnStatus = true;
        await emit(returnStatusToken(output.value));
        return undefined;
      case 'envChange':
        await emit(envChangeToken(output.change));
        return undefined;
      case 'dropConnection':
        args.dropConnection();
        return 'dropped';
    }
  };

  if (args.resetConnection) await emit(envChangeResetAck());
  let outputs: AsyncIterator<Output> | undefined;
  try {
    outputs = args.engine.execute(args.session, request, { signal, resetConnection: args.resetConnection })[Symbol.asyncIterator]();
    for (;;) {
      const step = await untilAborted(outputs.next(), signal);
      if (step === ABORTED || step.done) break;
      if ((await handle(step.value)) === 'dropped') {
        closeQuietly(outputs);
        return 'dropped';
      }
      if (signal.aborted) break;
    }
  } catch (error) {
    if (!signal.aborted) {
      // The model threw: report it as a stand-in failure rather than leave the client waiting.
      anyError = true;
      const message = `stand-in engine failure: ${error instanceof Error ? error.message : String(error)}`;
      await emit(messageToken('error', { number: 50000, state: 1, class: 16, message, lineNumber: 0 }, args.serverName));
    }
  } finally {
    if (signal.aborted && outputs) closeQuietly(outputs);
  }

  if (signal.aborted) {
    // MS-TDS 2.2.1.7: the cancelled response ends here (EOM, no final DONE), and the attention gets its own
    // response message holding DONE with the ATTN bit; tedious reads exactly one message per client message.
    pendingDone = undefined;
    writer.end();
    await writer.ready();
    // A delayed acknowledgement (Engine.attentionAckDelayMs, a fault option) lets tests see a client's cancel timeout.
    const ackDelay = args.engine.attentionAckDelayMs?.() ?? 0;
    if (ackDelay > 0) await new Promise<void>((resolve) => setTimeout(resolve, ackDelay));
    if (writer.closed) return 'completed';
    writer.write(doneToken(TokenType.DONE, DoneStatus.ATTN));
  } else if (isRpc) {
    if (!sawReturnStatus) await emit(returnStatusToken(0));
    flushDone(true);
    writer.write(doneToken(TokenType.DONEPROC, anyError ? DoneStatus.ERROR : 0));
  } else if (pendingDone) {
    flushDone(false);
  } else {
    writer.write(doneToken(TokenType.DONE, anyError ? DoneStatus.ERROR : 0));
  }
  writer.end();
  await writer.ready();
  return 'completed';
}
