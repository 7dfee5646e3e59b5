// "Open Comparison File…" with hostile files (N14, N5): a file over the size limit is refused with a clear message
// before it is read; one that fits opens with its GRANTs and restore statement rebuilt from our templates, and
// "Copy GRANTs" grants to the connected login, never the one the file names.
import * as assert from 'node:assert/strict';
import type { PanelData } from '../../../src/shared/webviewProtocol';
import { comparisonDocument } from '../../../src/report/document';
import { makeRun } from '../report/runFixture';
import { installFakeVscode, sharedFake } from './support/fakeVscode';

describe('Open Comparison File… with hostile files', () => {
  const fake = sharedFake;
  let uninstall: () => void;
  let mod: typeof import('../../../src/extension/history/historyCommands');
  let limits: typeof import('../../../src/agent/untrustedComparison');
  const shown: PanelData[] = [];
  const panels = { show: async (d: PanelData) => void shown.push(d) } as never;

  before(async () => {
    fake.reset();
    uninstall = installFakeVscode(fake);
    mod = await import('../../../src/extension/history/historyCommands');
    limits = await import('../../../src/agent/untrustedComparison');
  });
  after(() => {
    fake.reset();
    uninstall?.();
  });

  function hostileFile(): string {
    const runs = [makeRun({ mode: 'DISABLED' }), makeRun({ mode: 'FORCED' })];
    for (const r of runs) {
      r.missing = [{ measurement: 'fileStats', reason: 'denied', grant: 'GRANT CONTROL SERVER TO [mallory];' }];
      r.preflight = { loginName: 'mallory', userName: 'mallory', databaseName: 'lab', checks: [], missing: [], grantScript: 'GRANT CONTROL SERVER TO [mallory];' };
    }
    return JSON.stringify(comparisonDocument({ runs, status: 'completed' }));
  }

  it('refuses a file over the limit before reading it, and says how big it is and what the limit is', async () => {
    fake.shown = [];
    shown.length = 0;
    fake.written.set('/tmp/huge.json', hostileFile());
    fake.fileSizes.set('/tmp/huge.json', limits.MAX_COMPARISON_FILE_BYTES + 1);
    fake.fileReads = [];
    fake.openAnswers.push('/tmp/huge.json');
    assert.equal(await mod.openComparisonFile(panels), false);
    assert.deepEqual(fake.fileReads, [], 'not read at all');
    assert.equal(shown.length, 0);
    const error = fake.shown.find((s) => s.kind === 'error')!;
    assert.equal(error.message, 'Durability Lens: /tmp/huge.json is 32.0 MiB (33,554,433 bytes); Durability Lens opens comparison files up to 32.0 MiB (a comparison it writes is far smaller). Nothing was read or opened.');
  });

  it('the limit itself is whole bytes and the message uses readable units', () => {
    assert.equal(limits.MAX_COMPARISON_FILE_BYTES, 32 * 1024 * 1024);
    assert.equal(limits.tooLargeText('a.json', limits.MAX_COMPARISON_FILE_BYTES), null);
    assert.match(limits.tooLargeText('a.json', 3 * 1024 * 1024 * 1024)!, /^a\.json is 3072\.0 MiB \(3,221,225,472 bytes\);/);
  });

  it('opens one that fits, with our GRANT templates: Copy GRANTs names the connected login, never mallory', async () => {
    fake.shown = [];
    shown.length = 0;
    fake.written.set('/tmp/ok.json', hostileFile());
    fake.openAnswers.push('/tmp/ok.json');
    assert.equal(await mod.openComparisonFile(panels), true);
    const data = shown[0]!;
    assert.doesNotMatch(JSON.stringify(data), /mallory\]|CONTROL SERVER/);
    assert.match(data.grantScript, /TO <your login>;/);
    const copied = limits.fillGrantees(data.grantScript, { loginName: 'lens_reader', userName: 'lens_reader' });
    assert.match(copied.text, /GRANT VIEW SERVER (PERFORMANCE )?STATE TO \[lens_reader\];/);
    assert.doesNotMatch(copied.text, /mallory/);
  });
});
