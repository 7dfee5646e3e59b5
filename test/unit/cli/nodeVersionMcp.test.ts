// Attack install42: `durability-lens mcp` without --allow-run only analyzes files and reads results — it never
// connects — so it runs on Node 18/20; with --allow-run its tools connect and the Node 22 refusal says why.
import { strict as assert } from 'node:assert';
import { nodeVersionProblem } from '../../../src/cli/nodeVersion';

describe('nodeVersionProblem: mcp (install42)', () => {
  it('read-only mcp runs on Node 20 and 18', () => {
    assert.equal(nodeVersionProblem(['mcp'], '20.20.2'), null);
    assert.equal(nodeVersionProblem(['mcp', '--root', 'db'], '18.20.8'), null);
  });

  it('mcp --allow-run is refused before it serves, naming the reason, the fix and the read-only way', () => {
    const text = nodeVersionProblem(['mcp', '--allow-run', '--connection', 'lab'], '20.20.2');
    assert.ok(text !== null);
    assert.match(text, /^durability-lens mcp --allow-run: needs Node 22 or later \(it connects to SQL Server, and the driver uses Node 22 APIs\); this is Node 20\.20\.2\./);
    assert.match(text, /Install Node 22 \(https:\/\/nodejs\.org\)/);
    assert.match(text, /Without --allow-run, `durability-lens mcp` \(analyze and results only\) runs on this Node\./);
  });
});
