// The Durability Lens Output channel (where the language client logs too), neutralised once where it is made (as the CLI wraps its stdout and stderr once):
// whatever a feature writes — a workload's PRINT and RAISERROR text, a server's or the driver's error message, a
// database, login, event-session or Query Store name, a file path, a profile name from settings.json — is written as
// shared/visibleText.ts logEntryText makes it: no control, escape or bidi character acts, and no line of it can pass
// for an entry of its own.
import type * as vscode from 'vscode';
import { logEntryText } from '../../shared/visibleText';

/** The channel's methods that write text; the others (show, clear, logLevel, dispose…) pass through. */
const WRITERS = new Set<PropertyKey>(['append', 'appendLine', 'replace', 'trace', 'debug', 'info', 'warn', 'error']);

function neutral(value: unknown): unknown {
  if (typeof value === 'string') return logEntryText(value);
  if (value instanceof Error) return logEntryText(value.stack ?? value.message);
  return value;
}

/** `channel` with every string (or Error) handed to a writing method neutralised first. */
export function neutralOutputChannel<C extends vscode.OutputChannel>(channel: C): C {
  return new Proxy(channel, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      return WRITERS.has(property) ? (...args: unknown[]) => method.apply(target, args.map(neutral)) : method.bind(target);
    },
  });
}
