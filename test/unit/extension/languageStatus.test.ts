// The language-status item of SQL editors: what it says while the language server starts, runs (with the database the
// analysis assumes), stopped or failed, with the real class and a fake `vscode`.
import assert from 'node:assert/strict';
import { installFakeVscode, sharedFake } from './support/fakeVscode';

describe('extension/language status item', () => {
  // The shared fake: another file may have loaded the language module first (support/fakeVscode.ts sharedFake).
  const fake = sharedFake;
  let uninstall: () => void;
  let DurabilityLanguageStatus: typeof import('../../../src/extension/language').DurabilityLanguageStatus;

  before(async () => {
    fake.reset();
    uninstall = installFakeVscode(fake);
    ({ DurabilityLanguageStatus } = await import('../../../src/extension/language'));
  });
  after(() => uninstall());

  const shown = (item: Record<string, unknown>) => ({ text: item.text, detail: item.detail, busy: item.busy, severity: item.severity });

  it('says starting (busy) first, then the assumed database while running, and opens the output on click', () => {
    const status = new DurabilityLanguageStatus();
    const item = fake.languageStatusItems.at(-1)!;
    assert.deepEqual(item.selector, { language: 'sql' });
    assert.deepEqual(item.command, { title: 'Open Output', command: 'durabilityLens.showOutput' });
    assert.deepEqual(shown(item), { text: 'Durability Lens', detail: 'starting the language server', busy: true, severity: 0 });
    status.setState('running');
    assert.deepEqual(shown(item), { text: 'Durability Lens', detail: 'no database connected', busy: false, severity: 0 });
    status.setDatabase({ database: 'lab', delayedDurability: 'FORCED' });
    assert.deepEqual(shown(item), { text: 'Durability Lens', detail: 'lab: DELAYED_DURABILITY = FORCED', busy: false, severity: 0 });
    status.dispose();
    assert.equal(item.disposed, true);
  });

  it('says stopped, and failed as an error pointing to the output, whatever database is set', () => {
    const status = new DurabilityLanguageStatus();
    const item = fake.languageStatusItems.at(-1)!;
    status.setDatabase({ database: 'lab', delayedDurability: 'DISABLED' });
    status.setState('stopped');
    assert.deepEqual(shown(item), { text: 'Durability Lens: stopped', detail: 'the language server is not running', busy: false, severity: 0 });
    status.setState('failed');
    assert.deepEqual(shown(item), { text: 'Durability Lens: failed', detail: 'the language server could not start; see the output', busy: false, severity: 2 });
  });
});
