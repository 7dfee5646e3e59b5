import assert from 'node:assert/strict';

describe('toolchain', () => {
  it('runs the tests on Node 22 or later', () => {
    assert.ok(Number(process.versions.node.split('.')[0]) >= 22, process.version);
  });
});
