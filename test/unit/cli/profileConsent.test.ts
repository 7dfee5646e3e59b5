import { strict as assert } from 'node:assert';
import { changesLine, profileRunsText, workloadChanges, workloadConsent } from '../../../src/cli/commands/profileConsent';
import { chooseWorkload, type ChosenWorkload } from '../../../src/profile/workloadChoice';

/** The batches profile runs for a whole file, as readBatches chooses them. */
function batchesOf(text: string) {
  return (chooseWorkload(text, { kind: 'selection', start: 0, end: text.length }) as ChosenWorkload).batches;
}

describe('CLI profile consent: what a workload changes and whether it may run', () => {
  it('finds the changes in every batch, the setup part included, at their document lines', () => {
    const text = '-- durability-lens: setup\nTRUNCATE TABLE dbo.t;\n-- durability-lens: measure\nGO\nSELECT 1;\nGO\n\nDECLARE @i int = 0;\nWHILE @i < 10 BEGIN INSERT dbo.t VALUES (@i); SET @i += 1; END\n';
    assert.deepEqual(workloadChanges(batchesOf(text)).map((c) => `${c.what}@${c.line + 1}`), ['TRUNCATE TABLE@2', 'INSERT@9']);
    assert.deepEqual(workloadChanges(batchesOf('SELECT name FROM sys.databases;\nSET NOCOUNT ON;\n')), []);
  });

  it('says how often the statements run', () => {
    assert.equal(profileRunsText(null, null), 'once');
    assert.equal(profileRunsText(1, null), 'once');
    // The setup runs once before the N connections start (a DROP TABLE in it is not run 4 times at once).
    assert.equal(profileRunsText(4, null), 'on 4 connections at once (a setup part once, before them)');
    // --trace-overhead N runs the workload 2×N times in all, the first of them the profile's own run (its plan line says so).
    assert.equal(profileRunsText(null, 3), '6 times (--trace-overhead 3)');
    assert.equal(profileRunsText(null, 2), '4 times (--trace-overhead 2)');
  });

  it('a change in a batch that GO n repeats says it runs n times', () => {
    const text = 'SELECT 1;\nGO\nINSERT INTO dbo.t VALUES (1);\nUPDATE dbo.t SET id = 2;\nGO 5\nDELETE dbo.t;\n';
    assert.deepEqual(workloadChanges(batchesOf(text)).map((c) => `${c.what}@${c.line + 1}`), ['INSERT ×5 by GO 5@3', 'UPDATE ×5 by GO 5@4', 'DELETE@6']);
  });

  it('an answer that cannot be given (no terminal) or a no runs nothing; --yes wins over both', async () => {
    const changes = [{ line: 0, what: 'DELETE' }];
    const said: string[] = [];
    const stderr = (t: string) => void said.push(t);
    assert.equal(await workloadConsent({ changes, yes: false, development: false, runs: 'once', ask: () => null, stderr }), false);
    assert.equal(await workloadConsent({ changes, yes: false, development: false, runs: 'once', ask: () => Promise.resolve(false), stderr }), false);
    assert.equal(await workloadConsent({ changes, yes: true, development: false, runs: 'once', ask: () => Promise.resolve(false), stderr }), true);
    assert.equal(await workloadConsent({ changes, yes: false, development: false, runs: 'once', ask: () => Promise.resolve(true), stderr }), true);
    assert.match(said[0]!, /^Changes: {2}the workload changes data or schema, and runs once: DELETE \(line 1\)\.\n$/);
  });

  it('Ctrl+C at the question says nothing was run and rethrows as an interrupted question', async () => {
    const ctrlC = () => Promise.reject(Object.assign(new Error('Aborted with Ctrl+C'), { name: 'AbortError' }));
    await assert.rejects(
      workloadConsent({ changes: [{ line: 4, what: 'UPDATE' }], yes: false, development: false, runs: 'once', ask: ctrlC, stderr: () => undefined }),
      // Not "nothing was restored": a restore the user confirmed at the question before this one may have run.
      (err: Error) => err.name === 'QuestionInterruptedError' && err.message === 'Interrupted at the question (Ctrl+C): the workload was not run; nothing of it was sent.',
    );
  });
  it('without a terminal it says what a question needs and every way to go ahead, for a connection string too', async () => {
    const said: string[] = [];
    assert.equal(await workloadConsent({ changes: [{ line: 0, what: 'DELETE' }], yes: false, development: false, runs: 'once', ask: () => null, stderr: (t) => void said.push(t) }), false);
    // stdin piped or stderr redirected: at a terminal, "there is no terminal" alone reads as a bug.
    assert.match(said[1]!, /There is no terminal to ask on \(the question needs both stdin and stderr on a terminal\); re-run with --yes to run it/);
    // Not "mark the named connection": a connection string has no settings entry to mark.
    assert.match(said[1]!, /or use a --connection NAME whose entry in the settings is marked "development": true\)\.\n$/);
  });
  it('the Changes line stays bounded: a 200,000-character word after DROP/ALTER is cut, like a name (128 at most)', () => {
    const word = 'x'.repeat(200_000);
    const changes = workloadChanges(batchesOf(`DROP ${word}\nGO\nALTER ${word}\nGO\n${'INSERT dbo.t VALUES (1);\n'.repeat(10_000)}`));
    assert.equal(changes.length, 10_002);
    assert.equal(changes[0]!.what.length, 200_005); // the classifier keeps the word whole; the line cuts it
    const line = changesLine(changes, 'once');
    assert.ok(line.length < 1_000, `${line.length} characters`);
    assert.match(line, /: DROP X{100,}… \(line 1\), ALTER X{100,}… \(line 3\), INSERT \(line 5\), .* and 9996 more\.\n$/);
    // A cut never splits a surrogate pair (half an emoji would print as U+FFFD).
    const emoji = changesLine([{ line: 0, what: `DROP x${'😀'.repeat(500)}` }], 'once');
    assert.doesNotMatch(emoji, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    assert.match(emoji, /😀… \(line 1\)\.\n$/);
  });

  it('a named connection not marked development: the refusal says so (it does not ask to "use" one), its name neutralised', async () => {
    const said: string[] = [];
    const stderr = (t: string) => void said.push(t);
    assert.equal(await workloadConsent({ changes: [{ line: 0, what: 'DELETE' }], yes: false, development: false, named: 'Shared\u202e', runs: 'once', ask: () => null, stderr }), false);
    assert.match(said[1]!, /re-run with --yes to run it \(the connection "Shared\\u202e" is not marked "development": true in the settings, which would run it without asking\)\.\n$/);
    assert.doesNotMatch(said[1]!, /use a --connection NAME/);
  });

  it('classifies what is sent: a procedure call that the setup/measure split makes the first statement of its batch', () => {
    // Whole, the batch reads `SELECT 1 usp_wipe` (a column alias): only reads. The run sends the setup and the measured
    // lines as batches of their own, and `usp_wipe` first in a batch runs that procedure (no EXEC needed there).
    const split = '-- durability-lens: setup\nSELECT 1\n-- durability-lens: measure\nusp_wipe\n';
    assert.deepEqual(workloadChanges(batchesOf(split)).map((c) => `${c.what}@${c.line + 1}`), ['usp_wipe (a name alone, first in its batch, runs that procedure)@4']);
    const inSetup = 'SELECT 1 AS a\n-- durability-lens: setup\ndbo.usp_wipe 1\n-- durability-lens: measure\n';
    assert.deepEqual(workloadChanges(batchesOf(inSetup)).map((c) => `${c.what}@${c.line + 1}`), ['dbo.usp_wipe (a name alone, first in its batch, runs that procedure)@3']);
    // Markers that do not pair: the run refuses before sending anything; the batches as written are still classified.
    assert.deepEqual(workloadChanges(batchesOf('-- durability-lens: setup\nDELETE dbo.t;\n')).map((c) => `${c.what}@${c.line + 1}`), ['DELETE@2']);
  });
});
