// Attack install41: the "needs Node 22" message from an installed package on the machine's Node 20.
import { strict as assert } from 'node:assert';
import { nodeVersionProblem } from '../../../src/cli/nodeVersion';

describe('nodeVersionProblem: what the Node 20 refusal repeats (install41)', () => {
  it('does not repeat a password given inside a --connection string', () => {
    const text = nodeVersionProblem(['profile', '--connection', 'Server=db;User Id=sa;Password=hunter2', 'w.sql'], '20.19.0');
    assert.ok(text !== null);
    assert.ok(!text.includes('hunter2'), text);
  });

  it('suggests no command line that the shell would split at a ";" or a space', () => {
    const text = nodeVersionProblem(['profile', '--connection', 'Server=db;Database=x', 'my file.sql'], '20.19.0');
    assert.ok(text !== null);
    assert.ok(!text.includes('Server=db;Database=x my file.sql'), text);
    assert.match(text, /bin\/durability-lens profile /);
  });

  it("a --help after '--' belongs to the program record runs: the refusal still comes", () => {
    const text = nodeVersionProblem(['record', '--connection', 'ci', '--', 'npm', 'test', '--help'], '20.19.0');
    assert.ok(text !== null, 'record on Node 20 must be refused before it connects');
    assert.match(text, /needs Node 22/);
  });

  it('trace read (saved files, no server) runs on Node 20 like analyze', () => {
    assert.equal(nodeVersionProblem(['trace', 'read', 'saved.xml'], '20.19.0'), null);
    assert.match(nodeVersionProblem(['top-log', '--connection', 'x'], '20.19.0')!, /needs Node 22/);
  });

  it('a --help before the program still runs on any Node', () => {
    assert.equal(nodeVersionProblem(['record', '--help'], '20.19.0'), null);
    assert.equal(nodeVersionProblem(['profile', '-h', '--', 'x'], '20.19.0'), null);
  });
});
