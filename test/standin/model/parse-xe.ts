// Parser for CREATE EVENT SESSION (reference §4.2 syntax): events with ACTION/SET/WHERE, targets with SET, WITH options.
// The predicate keeps both its text (sys.server_event_session_events.predicate) and its expression (filtering).
import type { SqlValue } from '../engine';
import type { Stmt, XeEventDef, XeTargetDef } from './ast';
import { type Cursor, parseExpr } from './parse-expr';
import { parseScope } from './parse-stmt';

export function parseCreateEventSession(c: Cursor, line: number): Stmt {
  const name = c.name();
  c.expectKw('ON');
  const scope = parseScope(c);
  const events: XeEventDef[] = [];
  const targets: XeTargetDef[] = [];
  const options: Record<string, string> = {};
  for (;;) {
    if (c.acceptKw('ADD', 'EVENT')) {
      const parts = c.multipart();
      const ev: XeEventDef = { pkg: parts.length > 1 ? parts[parts.length - 2]! : '', name: parts[parts.length - 1]!, actions: [] };
      if (c.acceptOp('(')) {
        while (!c.acceptOp(')')) {
          if (c.acceptKw('ACTION')) {
            c.expectOp('(');
            do ev.actions.push(c.multipart().join('.')); while (c.acceptOp(','));
            c.expectOp(')');
          } else if (c.acceptKw('SET')) {
            do { c.name(); c.expectOp('='); parseExpr(c); } while (c.acceptOp(','));
          } else if (c.acceptKw('WHERE')) {
            const start = c.tok.offset;
            ev.predicateExpr = parseExpr(c);
            ev.predicate = c.sql.slice(start, c.tokens[c.pos - 1]!.end);
          } else throw c.unexpected();
        }
      }
      events.push(ev);
      c.acceptOp(',');
      continue;
    }
    if (c.acceptKw('ADD', 'TARGET')) {
      const parts = c.multipart();
      const tg: XeTargetDef = { pkg: parts.length > 1 ? parts[parts.length - 2]! : '', name: parts[parts.length - 1]!, settings: {} };
      if (c.acceptOp('(')) {
        c.expectKw('SET');
        do {
          const key = c.name().toLowerCase();
          c.expectOp('=');
          const paren = c.acceptOp('(');
          const t = c.next();
          let v: SqlValue = t.kind === 'number' ? Number(t.value) : t.value;
          if (t.kind === 'ident' && !t.quoted) v = t.value.toUpperCase();
          if (paren) c.expectOp(')');
          tg.settings[key] = v;
        } while (c.acceptOp(','));
        c.expectOp(')');
      }
      targets.push(tg);
      c.acceptOp(',');
      continue;
    }
    break;
  }
  if (c.acceptKw('WITH')) {
    c.expectOp('(');
    do {
      const key = c.name().toUpperCase();
      c.expectOp('=');
      let v = c.next().value.toUpperCase();
      if (c.tok.kind === 'ident' && ['SECONDS', 'KB', 'MB'].includes(c.tok.value.toUpperCase())) v += ' ' + c.next().value.toUpperCase();
      options[key] = v;
    } while (c.acceptOp(','));
    c.expectOp(')');
  }
  if (!events.length) throw c.unexpected();
  return { line, k: 'createEventSession', name, scope, events, targets, options };
}
