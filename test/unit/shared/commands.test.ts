import * as assert from 'node:assert/strict';
import { describeTarget, isProfileTarget, type ProfileTarget } from '../../../src/shared/commands';

const batchTarget: ProfileTarget = {
  uri: 'file:///w/a.sql',
  version: 3,
  batchIndex: 1,
  batchRange: { start: { line: 4, character: 0 }, end: { line: 9, character: 4 } },
  repeat: 1,
  commit: null,
};

const transactionTarget: ProfileTarget = {
  ...batchTarget,
  commit: {
    position: { line: 8, character: 2 },
    range: { start: { line: 8, character: 2 }, end: { line: 8, character: 9 } },
    transactionRange: { start: { line: 5, character: 0 }, end: { line: 8, character: 9 } },
    delayedDurability: null,
    inLoop: false,
  },
};

describe('shared/commands', () => {
  it('accepts the targets lenses carry', () => {
    assert.equal(isProfileTarget(batchTarget), true);
    assert.equal(isProfileTarget(transactionTarget), true);
    // The same object after a JSON round trip (what crosses the LSP connection).
    assert.equal(isProfileTarget(JSON.parse(JSON.stringify(transactionTarget))), true);
  });

  it('rejects what the palette, keybindings or other extensions may pass', () => {
    assert.equal(isProfileTarget(undefined), false);
    assert.equal(isProfileTarget({}), false);
    assert.equal(isProfileTarget({ ...batchTarget, uri: 7 }), false);
    assert.equal(isProfileTarget({ ...batchTarget, batchRange: { start: { line: 1 } } }), false);
    assert.equal(isProfileTarget({ ...transactionTarget, commit: { ...transactionTarget.commit, delayedDurability: 'MAYBE' } }), false);
    assert.equal(isProfileTarget({ ...batchTarget, commit: undefined }), false);
  });

  it('describes targets with 1-based lines', () => {
    assert.equal(describeTarget(batchTarget), 'batch 2 (lines 5–10)');
    assert.equal(describeTarget({ ...batchTarget, repeat: 67 }), 'batch 2 (lines 5–10) (GO 67)');
    assert.equal(describeTarget(transactionTarget), 'the transaction committed at line 9 (lines 6–9, batch 2)');
    const noBegin = { ...transactionTarget, commit: { ...transactionTarget.commit!, transactionRange: null } };
    assert.equal(describeTarget(noBegin), 'the transaction committed at line 9 (line 9, batch 2)');
  });
});
