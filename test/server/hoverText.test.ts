import * as assert from 'node:assert/strict';
import { commitOutcome, commitText } from '../../src/server/hoverText';

describe('server/hoverText', () => {
  it('follows the COMMIT option × database setting table of "Control Transaction Durability"', () => {
    const table = (['OFF', 'ON', null] as const).map((option) =>
      (['DISABLED', 'ALLOWED', 'FORCED'] as const).map((setting) => commitOutcome(option, setting)),
    );
    assert.deepEqual(table, [
      ['fully durable', 'fully durable', 'delayed durable'],
      ['fully durable', 'delayed durable', 'delayed durable'],
      ['fully durable', 'fully durable', 'delayed durable'],
    ]);
  });

  it('names the connected database and warns about loss only when the commit is delayed', () => {
    const forced = commitText(null, { database: 'Sales', delayedDurability: 'FORCED' });
    assert.match(forced, /\*\*delayed durable\*\* on database `Sales` \(DELAYED_DURABILITY = FORCED\)/);
    assert.match(forced, /can be lost/);
    const disabled = commitText('ON', { database: 'Sales', delayedDurability: 'DISABLED' });
    assert.match(disabled, /\*\*fully durable\*\*/);
    assert.doesNotMatch(disabled, /can be lost/);
  });
});
