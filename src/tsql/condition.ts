// What an IF/WHILE condition tests, read token by token: a transaction-count guard (@@TRANCOUNT, XACT_STATE(), a
// copy of the count in a variable), a cursor's @@FETCH_STATUS, an every-N `% N`, or anything else. The structural
// scanner (structure.ts) decides what a guarded COMMIT or loop means from it.

import { Kw } from './keywords';
import { TokenKind } from './lexer';
import { opensStatement } from './statement-end';
import { TokenCursor } from './token-cursor';

/** What an IF/WHILE condition tests. */
export interface Condition {
  /** Mentions @@TRANCOUNT or XACT_STATE(). */
  tranCount: boolean;
  fetchStatus: boolean;
  /** Tests anything else (a variable, @@ROWCOUNT, a subquery...): not a pure transaction guard. */
  other: boolean;
  /** `% N` with a literal N. */
  modulo: number | null;
  /** Its tokens: [from, to). */
  from: number;
  to: number;
}

/** Words a pure `@@TRANCOUNT`/`XACT_STATE()` test may hold besides them. */
const GUARD_WORDS = ['XACT_STATE', 'AND', 'OR', 'NOT', 'IS', 'NULL'];

export class ConditionReader extends TokenCursor {
  /** Reads the condition at `from` (tokens before `end`): up to the first statement word at paren depth 0. */
  read(from: number, end: number, tranCountVars: ReadonlySet<string>): Condition {
    this.p = from;
    this.n = end;
    let depth = 0, caseDepth = 0, first = true;
    const cond: Condition = { tranCount: false, fetchStatus: false, other: false, modulo: null, from, to: from };
    while (this.p < this.n) {
      const kind = this.kind();
      const k = this.kw();
      if (!first && depth === 0 && caseDepth === 0) {
        if (kind === TokenKind.Semicolon || k === Kw.END || k === Kw.ELSE || k === Kw.WITH) break;
        if (opensStatement(k) && !(k === Kw.UPDATE && this.kind(this.p + 1) === TokenKind.LParen)) break;
      }
      first = false;
      if (kind === TokenKind.LParen) depth++;
      else if (kind === TokenKind.RParen) { if (depth > 0) depth--; }
      else if (k === Kw.CASE) caseDepth++;
      else if (k === Kw.END && caseDepth > 0) caseDepth--;
      else if (kind === TokenKind.SystemVariable) {
        if (this.upperIs(this.p, '@@TRANCOUNT')) cond.tranCount = true;
        else { cond.other = true; if (this.upperIs(this.p, '@@FETCH_STATUS')) cond.fetchStatus = true; }
      } else if (kind === TokenKind.Word) {
        // XACT_STATE is not in the keyword table, so only a word the table does not know can be it.
        if (k !== Kw.None) { if (k === Kw.SELECT || k === Kw.EXISTS) cond.other = true; }
        else if (this.upperIs(this.p, 'XACT_STATE')) cond.tranCount = true;
        else if (!this.isGuardWord(this.p)) cond.other = true;
      } else if (kind === TokenKind.Variable && tranCountVars.size !== 0 && tranCountVars.has(this.text(this.p).toLowerCase())) cond.tranCount = true;
      else if (kind === TokenKind.Variable || kind === TokenKind.TempName || kind === TokenKind.String) cond.other = true;
      else if (kind === TokenKind.Operator && this.isOperator(this.p, '%')) {
        cond.other = true;
        if (this.kind(this.p + 1) === TokenKind.Number) cond.modulo = Number(this.text(this.p + 1));
      }
      this.p++;
    }
    cond.to = this.p;
    return cond;
  }

  private isGuardWord(i: number): boolean {
    return this.upperIn(i, GUARD_WORDS);
  }
}
