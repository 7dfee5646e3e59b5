// What the procedure lens offers once the deployed definition has been read: a numbered or temporary procedure
// (whose definition can't be compared) is offered only "Run the Deployed Version" — never a deploy that could not be
// read back, never "not deployed" (review D4).
import * as assert from 'node:assert/strict';
import { installFakeVscode, sharedFake } from './support/fakeVscode';

describe('procedure lens: choices after reading the deployed definition', () => {
  let uninstall: () => void;
  let mod: typeof import('../../../src/extension/procedures/procedureRun');
  before(async () => {
    uninstall = installFakeVscode(sharedFake);
    mod = await import('../../../src/extension/procedures/procedureRun');
  });
  after(() => uninstall?.());

  it('offers only running the deployed version when the definition cannot be compared', () => {
    const { definitionChoices, DEFINITION_CHOICES } = mod;
    assert.deepEqual(definitionChoices('not-comparable'), [DEFINITION_CHOICES.runDeployed()]);
    assert.deepEqual(definitionChoices('missing'), [DEFINITION_CHOICES.deploy()]);
    assert.deepEqual(definitionChoices('found'), [DEFINITION_CHOICES.runDeployed(), DEFINITION_CHOICES.deploy()]);
    assert.deepEqual(definitionChoices('hidden'), [DEFINITION_CHOICES.runDeployed(), DEFINITION_CHOICES.deploy()]);
  });
});
