// Start of every connected command: what a gone comparison left behind — entries in this machine's restore journal
// for the server, and an ownership marker on the command's own database (left by any machine). Never restored
// silently: `--yes` (or a "yes" on the terminal) restores only what no live comparison owns, each back to the setting
// its run recorded (the marker's original, not what the database reads now); without it the statement is printed.
import { connect } from '../../db/connect';
import { quoteName } from '../../db/quote';
import type { ConnectionProfile } from '../../db/types';
import {
  assessOwner,
  describeClaim,
  describePending,
  dropMarkerStatement,
  isUnreadable,
  pendingRestores,
  readMarker,
  recoverDatabase,
  recoverFromJournal,
  releaseDatabaseLock,
  tryLockDatabase,
  alterDurabilitySql,
  type ConnectionSource,
  type RestoreJournal,
  type RecoveryOptions,
  type RestoreOutcome,
} from '../../profile';
import type { CliIO } from '../io';
import { terminalField } from '../terminalText';
import { logEntryText } from '../../shared/visibleText';

/**
 * Answers a yes/no question on the terminal; null when there is no terminal to ask (CI, pipes). `signal` (the command's
 * stop signal: SIGTERM, SIGHUP) ends a question still waiting, with an AbortError.
 */
export type AskYesNo = (question: string, signal?: AbortSignal) => Promise<boolean> | null;

/** Asks on stdin/stderr when both are terminals. */
export const terminalAsk: AskYesNo = (question, signal) => askOn(process.stdin, process.stderr, question, signal);

type Terminal<T> = T & { isTTY?: boolean | undefined };

/** An answer sooner than this after the question was shown was typed before it (no one reads and answers in 0.2 s). */
export const TYPED_AHEAD_MS = 200;

/**
 * The question on `input`/`output` when both are terminals. Ctrl+C rejects with an AbortError (the terminal is raw, so
 * no SIGINT reaches the process: the caller says what stays); end of input (Ctrl+D) is a no; `signal` aborting rejects
 * with an AbortError, so a SIGTERM does not leave the process waiting for a key.
 */
export function askOn(input: Terminal<NodeJS.ReadableStream>, output: Terminal<NodeJS.WritableStream>, question: string, signal?: AbortSignal, now: () => number = Date.now): Promise<boolean> | null {
  if (!input.isTTY || !output.isTTY) return null;
  return import('node:readline/promises').then(async ({ createInterface }) => {
    const rl = createInterface({ input, output });
    // With a listener, readline reports Ctrl+C here instead of ending the question as it does on Ctrl+D: the two
    // differ. An input that ends otherwise (closed) ends the question too, as end of input.
    let ctrlC = false;
    const ended = new AbortController();
    rl.on('SIGINT', () => {
      ctrlC = true;
      ended.abort();
    });
    rl.on('close', () => ended.abort());
    try {
      for (;;) {
        const shownAt = now();
        const answer = await rl.question(`${question} [y/N] `, { signal: signal ? AbortSignal.any([signal, ended.signal]) : ended.signal });
        // A line that comes sooner than anyone could read the question was typed before it was shown (a "y" meant for
        // an earlier prompt, or typed ahead): it is not an answer to what the user has not seen. Asked again.
        if (now() - shownAt >= TYPED_AHEAD_MS) return /^y(es)?$/i.test(answer.trim());
        output.write('(An answer typed before this question was shown is not taken: answer it now.)\n');
      }
    } catch (err) {
      if ((err as Error)?.name !== 'AbortError' || ctrlC || signal?.aborted) throw err;
      output.write('\n'); // Ctrl+D: no answer, so no; what follows starts on its own line
      return false;
    } finally {
      rl.close();
    }
  });
}

export type RecoveryVerdict = 'clear' | 'declined' | 'in-use' | 'failed';

export interface RecoveryPromptOptions {
  yes: boolean;
  ask?: AskYesNo | undefined;
  /** How long an owner on another machine may take to come back before its marker is recovered (tests shorten it). */
  ownerGraceMs?: number | undefined;
  /** Also look for an ownership marker on the command's own database (compare: it is about to change it). */
  checkMarker?: boolean;
  /** The command's stop signal: a wait for another machine's owner ends when it aborts (that claim is left alone). */
  signal?: AbortSignal | undefined;
}

/**
 * Ctrl+C at a recovery question: node:readline/promises rejects the question with an AbortError (the terminal is raw,
 * so no SIGINT reaches the run's signal handlers). Nothing was restored and nothing changed; the command ends with
 * SIGINT's exit code (130) and says what stays.
 */
export class QuestionInterruptedError extends Error {
  /** `left`: what stays, after the recovery's "nothing was restored…"; `whole`: the text after the colon instead. */
  constructor(left: string, whole?: string) {
    super(`Interrupted at the question (Ctrl+C): ${whole ?? `nothing was restored and nothing was changed. ${left}`}`);
    this.name = 'QuestionInterruptedError';
  }
}

/**
 * One y/N question: true on a yes; false on a no or when a stop signal ended it (the command says it stopped);
 * 'no-terminal' when nobody can be asked. Ctrl+C throws `interrupted()` (the caller's words for what stays).
 */
export async function askYes(ask: AskYesNo | undefined, question: string, signal: AbortSignal | undefined, interrupted: () => Error): Promise<boolean | 'no-terminal'> {
  const answer = (ask ?? terminalAsk)(question, signal);
  if (answer === null) return 'no-terminal';
  try {
    return await answer;
  } catch (err) {
    if ((err as Error)?.name === 'AbortError' && signal?.aborted) return false;
    if ((err as Error)?.name === 'AbortError') throw interrupted();
    throw err;
  }
}

async function confirmed(options: RecoveryPromptOptions, question: string, left: string): Promise<boolean> {
  if (options.yes) return true;
  return (await askYes(options.ask, question, options.signal, () => new QuestionInterruptedError(left))) === true;
}

function verdictOf(outcomes: readonly RestoreOutcome[], io: CliIO): RecoveryVerdict {
  let verdict: RecoveryVerdict = 'clear';
  for (const o of outcomes) {
    io.stderr(`  ${logEntryText(o.message)}\n`);
    if (o.status === 'failed') verdict = 'failed';
    else if (o.status === 'in-use' && verdict === 'clear') verdict = 'in-use';
  }
  return verdict;
}

/**
 * 'clear': nothing left; 'declined': something remains, not confirmed; 'in-use': something remains because its run
 * still lives; 'failed': a restore was tried and failed (its exact statement is printed).
 */
export async function recoverPending(
  io: CliIO,
  journal: RestoreJournal,
  profile: ConnectionProfile,
  secret: string | undefined,
  source: ConnectionSource,
  options: RecoveryPromptOptions = { yes: false },
): Promise<RecoveryVerdict> {
  const recovery = { onWait: (m: string) => io.stderr(`${m}\n`), ownerGraceMs: options.ownerGraceMs, signal: options.signal };
  for (const file of (await journal.unreadableFiles?.()) ?? []) {
    io.stderr(`The restore journal holds a file that is not a readable entry (left untouched): ${terminalField(file)}. If it was a comparison's, its database may still be changed: check delayed_durability_desc in sys.databases, then delete the file.\n`);
  }
  const pending = await pendingRestores(journal, source.serverLabel);
  let verdict: RecoveryVerdict = 'clear';
  if (pending.length > 0) {
    io.stderr(`The restore journal holds ${pending.length} unfinished restore(s) for ${source.serverLabel}:\n${pending.map((e) => `  ${describePending(e)}`).join('\n')}\n`);
    const left = pending.map((e) => `DELAYED_DURABILITY of ${quoteName(e.database)} may still be ${e.lastApplied ?? 'unchanged'} (it was ${e.originalSetting}); the restore journal keeps the entry: re-run with --yes, or run: ${e.restoreStatement}`).join('\n');
    if (!(await confirmed(options, 'Restore them now (each only if its run is gone and the setting is still what that run applied)?', left))) {
      io.stderr(`Not restored: re-run with --yes to restore them, or run the statement yourself:\n${pending.map((e) => `  ${e.restoreStatement}`).join('\n')}\n`);
      verdict = 'declined';
    } else {
      verdict = verdictOf(await recoverFromJournal(journal, (entry) => connect({ ...profile, database: entry.database }, secret, { role: 'monitor' }), pending, recovery), io);
    }
  }
  if (!options.checkMarker) return verdict;
  const marker = await recoverTargetMarker(io, journal, profile, secret, source, options, recovery);
  const rank: RecoveryVerdict[] = ['clear', 'in-use', 'declined', 'failed'];
  return rank.indexOf(marker) > rank.indexOf(verdict) ? marker : verdict;
}

/**
 * The command's own database may carry the ownership marker of a comparison that ran on another machine (or whose
 * journal is elsewhere). A live owner is left alone (the comparison then refuses with its description); a gone one is
 * recovered on confirmation: back to the marker's original, the marker removed.
 */
async function recoverTargetMarker(
  io: CliIO,
  journal: RestoreJournal,
  profile: ConnectionProfile,
  secret: string | undefined,
  source: ConnectionSource,
  options: RecoveryPromptOptions,
  recovery: RecoveryOptions,
): Promise<RecoveryVerdict> {
  const database = profile.database;
  const client = await connect(profile, secret, { role: 'monitor' });
  try {
    const marker = await readMarker(client).catch(() => null);
    if (marker === null) return 'clear';
    if (isUnreadable(marker)) {
      io.stderr(`${describeClaim(database, marker)}\n`);
      return 'in-use';
    }
    // A quick look under the lock: a live owner is left to its own restore and the comparison's refusal.
    const lock = await tryLockDatabase(client, database);
    if (!lock.acquired) return 'in-use';
    const owner = await assessOwner(client, marker).finally(() => releaseDatabaseLock(client, database).catch(() => false));
    if (owner.state === 'alive') return 'in-use';
    io.stderr(`${describeClaim(database, marker)}. ${owner.reason}\n`);
    const left = `${quoteName(database)} keeps that comparison's marker and may still be ${marker.applied ?? 'unchanged'} (it was ${marker.original}): re-run with --yes, or run: ${alterDurabilitySql(database, marker.original)} ${dropMarkerStatement(database)}`;
    if (!(await confirmed(options, `Restore ${database} to ${marker.original} (the setting before that comparison) now?`, left))) {
      io.stderr(`Not restored: re-run with --yes, or, when you know that comparison is gone, run:\n  ${alterDurabilitySql(database, marker.original)}\n  ${dropMarkerStatement(database)}\n`);
      return 'declined';
    }
    return verdictOf(await recoverDatabase(client, { server: source.serverLabel, database, journal }, recovery), io);
  } finally {
    await client.close().catch(() => undefined);
  }
}
