// Turns failures of the log-flush session's statements into messages that say what happened, whether the server
// was changed, and the exact GRANT to ask for (permission cheat-sheet, reference §8 and §4.2).

import { quoteName } from '../db/quote';
import type { SessionScope } from './sessionSql';

export type XeStep = 'prepare' | 'create' | 'start' | 'stop' | 'read' | 'drop';

export interface XePlatform {
  scope: SessionScope;
  /** SERVERPROPERTY('ProductMajorVersion'): 16 = 2022. null when unknown. */
  majorVersion: number | null;
  /** SERVERPROPERTY('EngineEdition') when known: 8 (Managed Instance) has the 2022 permission names at major version 12. */
  engineEdition?: number | null;
  /** Login (server scope) or database user (database scope) the GRANT names; null when unknown. */
  principal: string | null;
}

/** A session step failed; `grant` holds the statement that would fix a permission failure. */
export class XeSessionError extends Error {
  readonly step: XeStep;
  readonly grant: string | null;
  readonly serverErrorNumber: number | null;
  readonly sessionName: string;
  constructor(step: XeStep, sessionName: string, message: string, opts: { grant?: string | null; serverErrorNumber?: number | null; cause?: unknown }) {
    super(message, { cause: opts.cause });
    this.name = 'XeSessionError';
    this.step = step;
    this.sessionName = sessionName;
    this.grant = opts.grant ?? null;
    this.serverErrorNumber = opts.serverErrorNumber ?? null;
  }
}

interface ErrorLike {
  message?: unknown;
  number?: unknown;
  cause?: unknown;
}

/**
 * No server error anywhere in the chain: the request's answer was lost (a dropped connection, a request timeout), not
 * refused, so whatever it asked for may have run on the server.
 */
export function answerLost(err: unknown): boolean {
  return serverErrorOf(err).number === null;
}

/** The server error number and message of a thrown driver error, looking through `cause` wrappers. */
export function serverErrorOf(err: unknown): { number: number | null; message: string } {
  let cur: unknown = err;
  let firstMessage: string | null = null;
  for (let depth = 0; cur && typeof cur === 'object' && depth < 8; depth++) {
    const e = cur as ErrorLike;
    const message = typeof e.message === 'string' ? e.message : null;
    if (firstMessage === null && message) firstMessage = message;
    if (typeof e.number === 'number') return { number: e.number, message: message ?? firstMessage ?? '' };
    cur = e.cause;
  }
  return { number: null, message: firstMessage ?? String(err) };
}

/**
 * Permission failures. 297 "The user does not have permission to perform this action", 300 "... permission was denied",
 * 262 "... permission denied in database", 229 "The ... permission was denied on the object". The text check covers
 * wordings we have not catalogued; 15151 ("does not exist or you do not have permission") is ambiguous and handled by callers.
 */
export function isPermissionError(err: unknown): boolean {
  const { number, message } = serverErrorOf(err);
  if (number !== null && [229, 262, 297, 300].includes(number)) return true;
  return /permission (was )?denied|do(es)? not have permission/i.test(message) && number !== 15151;
}

/** "Cannot drop the event session ..., because it does not exist or you do not have permission." (15151) and similar. */
export function isMissingSessionError(err: unknown): boolean {
  const { number, message } = serverErrorOf(err);
  return number === 15151 || /does not exist/i.test(message);
}

function principalName(p: XePlatform): string {
  return p.principal ? quoteName(p.principal) : (p.scope === 'server' ? '[<login>]' : '[<user>]');
}

/** The permissions a step needs on this platform, as GRANT statements (reference §8, §4.2 "Permissions"). */
export function grantFor(step: XeStep, p: XePlatform): string {
  const to = principalName(p);
  // Managed Instance reports major version 12 but has the granular event-session permissions (issue 33 D4,
  // probes/permissions.ts hasGranularPermissions cites the pages).
  const is2022 = p.engineEdition === 8 || (p.majorVersion !== null && p.majorVersion >= 16);
  if (p.scope === 'database') {
    switch (step) {
      case 'create':
        return `GRANT CREATE ANY DATABASE EVENT SESSION TO ${to};`;
      case 'start':
        return `GRANT ALTER ANY DATABASE EVENT SESSION ENABLE TO ${to};`;
      case 'stop':
        return `GRANT ALTER ANY DATABASE EVENT SESSION DISABLE TO ${to};`;
      case 'drop':
        return `GRANT DROP ANY DATABASE EVENT SESSION TO ${to};`;
      case 'read':
      case 'prepare':
        // Not stated for the sys.dm_xe_* views in our reference; VIEW DATABASE STATE is the Azure DMV pattern (§0).
        return `GRANT VIEW DATABASE STATE TO ${to};  -- verify on the sys.dm_xe_database_session_targets Learn page`;
    }
  }
  switch (step) {
    case 'create':
      return is2022 ? `GRANT CREATE ANY EVENT SESSION TO ${to};  -- or ALTER ANY EVENT SESSION` : `GRANT ALTER ANY EVENT SESSION TO ${to};`;
    case 'start':
      return is2022 ? `GRANT ALTER ANY EVENT SESSION ENABLE TO ${to};  -- or ALTER ANY EVENT SESSION` : `GRANT ALTER ANY EVENT SESSION TO ${to};`;
    case 'stop':
      return is2022 ? `GRANT ALTER ANY EVENT SESSION DISABLE TO ${to};  -- or ALTER ANY EVENT SESSION` : `GRANT ALTER ANY EVENT SESSION TO ${to};`;
    case 'drop':
      return is2022 ? `GRANT DROP ANY EVENT SESSION TO ${to};  -- or ALTER ANY EVENT SESSION` : `GRANT ALTER ANY EVENT SESSION TO ${to};`;
    case 'read':
    case 'prepare':
      // prepare reads sys.dm_xe_objects / sys.dm_xe_object_columns: the server-state permission, like the other XE DMVs (§8).
      return is2022 ? `GRANT VIEW SERVER PERFORMANCE STATE TO ${to};` : `GRANT VIEW SERVER STATE TO ${to};`;
  }
}

const CHANGED: Record<XeStep, string> = {
  prepare: 'Nothing was changed on the server.',
  create: 'No event session was created; nothing on the server changed.',
  start: 'The session was created but not started; Durability Lens drops it again.',
  stop: 'The session may still be running; Durability Lens drops it, which ends it.',
  read: 'The events could not be read; the session is dropped as usual.',
  drop: 'The session may still exist on the server.',
};

/** A CREATE whose answer never came: the callers drop a session that may exist (EventSessionRunner.markCreateAttempted). */
const CREATE_UNANSWERED = 'The server may have created it before its answer was lost; Durability Lens drops it if it exists.';

const VERB: Record<XeStep, string> = {
  prepare: 'check the Extended Events prerequisites for',
  create: 'create the Extended Events session',
  start: 'start the Extended Events session',
  stop: 'stop the Extended Events session',
  read: 'read the events of the Extended Events session',
  drop: 'drop the Extended Events session',
};

/** Wraps a failure of `step` into an XeSessionError with the mapped, actionable message. */
export function mapSessionError(step: XeStep, sessionName: string, platform: XePlatform, err: unknown): XeSessionError {
  if (err instanceof XeSessionError) return err;
  const { number, message } = serverErrorOf(err);
  const what = `Could not ${VERB[step]} ${sessionName}`;
  if (isPermissionError(err)) {
    const grant = grantFor(step, platform);
    const tail = step === 'drop' ? ` Ask an administrator to drop it, or run: ${grant}` : ` Ask an administrator to run: ${grant}`;
    return new XeSessionError(step, sessionName, `${what}: permission denied. ${CHANGED[step]}${tail}`, { grant, serverErrorNumber: number, cause: err });
  }
  // The server's text is quoted verbatim in parentheses; a bare driver message ("The connection is closed.") runs
  // into our own sentence, so its closing period goes.
  const server = number !== null ? ` (server error ${number}: ${message})` : `: ${message.replace(/[.\s]+$/, '')}`;
  const after = step === 'drop' ? ` Find it later with "clean up orphan sessions" (it is named ${sessionName}).` : '';
  // No server error: the answer was lost (a dropped connection, a request timeout), not refused — the CREATE may have run.
  const changed = step === 'create' && number === null ? CREATE_UNANSWERED : CHANGED[step];
  return new XeSessionError(step, sessionName, `${what}${server}. ${changed}${after}`, { serverErrorNumber: number, cause: err });
}
