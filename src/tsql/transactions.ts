// Transaction bookkeeping for the structural scanner: the session's open transactions as a script runs batch after
// batch, savepoints, TRY/CATCH high-water marks, implicit transactions and the transaction a trigger runs in.
// The scanner (structure.ts) says what statement it met; this module says which BEGIN TRAN it closes and how sure we are.

import type { BeginTransactionNode, Opener } from './structure-types';

export type TxStack = BeginTransactionNode[];

/** What a routine body starts with, saved so the batch's own state comes back after the body. */
interface SavedSession {
  stack: TxStack;
  implicitTransactions: boolean;
  savepoints: Set<string>;
  gotos: Map<string, TxStack>;
}

/**
 * The open transactions of the session that runs the script. A transaction is a session's, not a batch's: GO ends a
 * batch, not the transaction (Learn, "BEGIN TRANSACTION": @@TRANCOUNT counts the session's open transactions,
 * https://learn.microsoft.com/sql/t-sql/statements/begin-transaction-transact-sql), so the stack carries over.
 */
export class SessionTransactions {
  stack: TxStack = [];
  /** SET IMPLICIT_TRANSACTIONS ON: DML opens a transaction that only COMMIT/ROLLBACK ends (session setting). */
  implicitTransactions = false;
  private savepoints = new Set<string>();
  private readonly tryTrackers: { deepest: TxStack }[] = [];
  /**
   * Where two paths joined holding different transactions at the same depth (a CATCH re-opened one, a TRY kept
   * another), the one kept stands for the others too: what closes it closes theirs, on their path.
   */
  private readonly aliases = new Map<BeginTransactionNode, BeginTransactionNode[]>();
  /** The deepest state a `GOTO label` left with, by label (labels are the batch's, or the routine's). */
  private gotos = new Map<string, TxStack>();

  /** Start of a batch: the session's transactions stay; TRY trackers are the batch's. */
  startBatch(): void {
    if (this.tryTrackers.length !== 0) this.tryTrackers.length = 0; // the length setter is a runtime call: skip it when empty
    if (this.gotos.size !== 0) this.gotos.clear();
  }

  /** `GOTO label`: the label is reached holding what is open here. */
  goto(label: string): void {
    const seen = this.gotos.get(label);
    if (seen === undefined || seen.length < this.stack.length) this.gotos.set(label, this.stack.slice());
  }

  /**
   * `label:`: reached by falling through or by a GOTO (`IF @@ERROR <> 0 GOTO failed ... COMMIT; RETURN; failed:
   * ROLLBACK`): judged per path, what follows sees either state.
   */
  label(label: string): void {
    const jumped = this.gotos.get(label);
    if (jumped !== undefined) this.stack = this.join(false, this.stack, false, jumped).slice();
  }

  get depth(): number {
    return this.stack.length;
  }

  get open(): boolean {
    return this.stack.length > 0 || this.implicitTransactions;
  }

  snapshot(): TxStack {
    return this.stack.slice();
  }

  restore(stack: TxStack): void {
    this.stack = stack.slice();
  }

  begin(node: BeginTransactionNode): void {
    this.stack.push(node);
    for (const tracker of this.tryTrackers) if (this.stack.length > tracker.deepest.length) tracker.deepest = this.stack.slice();
  }

  /** COMMIT: closes the innermost open transaction. Returns it and who opened it. */
  commit(batchIndex: number): { begin: BeginTransactionNode | null; opener: Opener | null } {
    const begin = this.stack.pop() ?? null;
    if (begin === null) return { begin: null, opener: this.implicitTransactions ? 'implicit-transactions' : null };
    this.close(begin);
    return { begin: begin.synthetic ? null : begin.batchIndex === batchIndex ? begin : null, opener: openerOf(begin, batchIndex) };
  }

  /** ROLLBACK [name]: to a savepoint leaves the transaction open; otherwise ends every open one. */
  rollback(name: string | null, batchIndex: number): { toSavepoint: boolean; opener: Opener | null } {
    const toSavepoint = name !== null && this.savepoints.has(name.toLowerCase());
    if (toSavepoint) return { toSavepoint, opener: this.stack.length > 0 ? openerOf(this.stack[0]!, batchIndex) : 'same-batch' };
    // `ROLLBACK TRAN inner` naming a nested transaction fails and rolls nothing back: "When nesting transactions,
    // transaction_name must be the name from the outermost BEGIN TRANSACTION statement", names compared case-sensitively
    // (Learn, "ROLLBACK TRANSACTION", https://learn.microsoft.com/sql/t-sql/language-elements/rollback-transaction-transact-sql).
    if (name !== null && !name.startsWith('@') && this.namesInnerTransaction(name)) {
      return { toSavepoint, opener: openerOf(this.stack[0]!, batchIndex) };
    }
    const outer = this.stack[0];
    for (const open of this.stack) this.close(open);
    this.stack = [];
    if (outer === undefined) return { toSavepoint, opener: this.implicitTransactions ? 'implicit-transactions' : null };
    return { toSavepoint, opener: openerOf(outer, batchIndex) };
  }

  /** `name` is the name of an open nested transaction and not of the outermost one (only 32 characters count). */
  private namesInnerTransaction(name: string): boolean {
    const outer = this.stack[0];
    if (outer === undefined || outer.name === null || this.stack.length < 2) return false;
    const key = name.slice(0, 32);
    if (outer.name.slice(0, 32) === key) return false;
    return this.stack.some((b, i) => i > 0 && b.name !== null && b.name.slice(0, 32) === key);
  }

  /** `WHILE @@TRANCOUNT > 0 COMMIT|ROLLBACK` ran: the loop only stops once no transaction is open. */
  closeAll(): void {
    for (const open of this.stack) this.close(open);
    this.stack = [];
  }

  /** Marks a transaction closed, and those it stands for after a join. */
  private close(node: BeginTransactionNode): void {
    node.matched = true;
    const others = this.aliases.get(node);
    if (others === undefined) return;
    this.aliases.delete(node);
    for (const other of others) this.close(other);
  }

  /**
   * The transaction state after two paths join; a path that does not fall through does not count. When both do, the
   * deeper state is kept (a later COMMIT still finds the BEGIN it closes), and each transaction it holds stands for
   * the one the other path held at the same depth: judged per path, a COMMIT after the join closes either.
   */
  join(endsA: boolean, a: TxStack, endsB: boolean, b: TxStack): TxStack {
    if (endsA && !endsB) return b;
    if (endsB && !endsA) return a;
    const [kept, other] = a.length >= b.length ? [a, b] : [b, a];
    for (let i = 0; i < other.length; i++) {
      const k = kept[i]!, o = other[i]!;
      if (k === o) continue;
      const list = this.aliases.get(k);
      if (list === undefined) this.aliases.set(k, [o]); else if (!list.includes(o)) list.push(o);
    }
    return kept;
  }

  save(name: string | null): void {
    if (name !== null) this.savepoints.add(name.toLowerCase());
  }

  /** BEGIN TRY: remembers the deepest state the TRY block reaches (an error can leave it at any point). */
  enterTry(): { deepest: TxStack } {
    const tracker = { deepest: this.stack.slice() };
    this.tryTrackers.push(tracker);
    return tracker;
  }

  leaveTry(): void {
    this.tryTrackers.pop();
  }

  /**
   * A CREATE PROCEDURE/FUNCTION/TRIGGER body: defining it runs nothing, so it starts with no transaction of ours
   * (a procedure's caller may have one: we cannot know) — except a trigger, which always runs inside the transaction
   * of the statement that fired it (Learn, "ROLLBACK TRANSACTION": "A trigger operates as if there were an outstanding
   * transaction in effect when the trigger is executed", https://learn.microsoft.com/sql/t-sql/language-elements/rollback-transaction-transact-sql).
   */
  enterRoutine(trigger: BeginTransactionNode | null): SavedSession {
    const saved = { stack: this.stack, implicitTransactions: this.implicitTransactions, savepoints: this.savepoints, gotos: this.gotos };
    this.stack = trigger ? [trigger] : [];
    this.implicitTransactions = false;
    this.savepoints = new Set();
    this.gotos = new Map();
    return saved;
  }

  leaveRoutine(saved: SavedSession): void {
    this.stack = saved.stack;
    this.implicitTransactions = saved.implicitTransactions;
    this.savepoints = saved.savepoints;
    this.gotos = saved.gotos;
  }
}

function openerOf(begin: BeginTransactionNode, batchIndex: number): Opener {
  if (begin.synthetic) return 'trigger';
  return begin.batchIndex === batchIndex ? 'same-batch' : 'earlier-batch';
}
