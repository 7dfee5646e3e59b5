// The language-model tools through the VS Code API shape (a fake `vscode.lm`), driven as an agent would: registered
// under the names package.json declares (and nothing on a VS Code without the lm API); analyze a file; compare and
// profile through the lens's own flow against the stand-in — the consent view shows the T-SQL and nothing runs when the
// user declines, Restricted Mode runs nothing, a confirmed comparison restores the setting — and read the results back.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localizedManifest } from '../../support/manifest';
import { connect } from '../../../src/db/connect';
import { AGENT_TOOLS, AgentTools } from '../../../src/agent/toolDefinitions';
import type { ConnectionManager as ConnectionManagerType } from '../../../src/extension/connections/connectionManager';
import type { ProfilingController as ProfilingControllerType } from '../../../src/extension/profiling/profilingController';
import type { RunHistory as RunHistoryType } from '../../../src/extension/history/runHistory';
import { KeyValueRestoreJournal, MemoryStore } from '../../../src/profile/restoreJournal';
import { readDurability } from '../../../src/profile';
import { GET_APPLOCK_SQL, lockResourceOf } from '../../../src/profile/databaseLock';
import { addMarker, dropMarkerOf, newMarker } from '../../../src/profile/ownershipMarker';
import { startStandin, type StandinHarness } from '../../integration/profile/standin';
import { fakeDocument } from './support/controllerFlow';
import { fakeOutput, installFakeVscode, sharedFake } from './support/fakeVscode';
import { comparisonDocument } from '../../../src/report/document';
import { makeRun } from '../report/runFixture';

const CONSENT = /^Durability Lens: confirm what runs — /;
/** A confirmation as it reads once rendered: appendText's escapes removed (what is Markdown stays, e.g. **bold**). */
const rendered = (markdown: string) => markdown.replace(/\\([\\`*_{}[\]()#+\-.!<>|])/g, '$1');

interface Tool {
  prepareInvocation?(options: { input: unknown }, token: unknown): { invocationMessage?: unknown; confirmationMessages?: { title: string; message: { value: string } } };
  invoke(options: { input: unknown; toolInvocationToken: undefined }, token: unknown): Promise<{ content: { value: string }[] }>;
}

const SCRIPT = [
  'SET NOCOUNT ON;', // 1
  'GO',
  '-- durability-lens: setup-end', // 3
  "IF OBJECT_ID(N'dbo.lm_rows', N'U') IS NOT NULL DROP TABLE dbo.lm_rows;",
  'CREATE TABLE dbo.lm_rows (id int);',
  'GO',
  'DECLARE @i int = 0;', // 7
  'WHILE @i < 20',
  'BEGIN',
  '  INSERT INTO dbo.lm_rows (id) VALUES (@i);', // 10
  '  SET @i += 1;',
  'END',
  'GO',
  '',
].join('\n');


describe('language-model tools (fake vscode.lm, stand-in)', function () {
  this.timeout(120_000);
  const fake = sharedFake;
  let uninstall: () => void;
  let h: StandinHarness;
  let manager: ConnectionManagerType;
  let controller: ProfilingControllerType;
  let history: RunHistoryType;
  const lines: string[] = [];
  const tool = (name: string) => fake.lmTools!.get(name) as Tool;
  const invoke = async (name: string, input: unknown) => (await tool(name).invoke({ input, toolInvocationToken: undefined }, { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) })).content.map((c) => c.value).join('\n');
  const setting = async () => {
    const s = await connect(h.profile, h.secret, { role: 'monitor' });
    try {
      return await readDurability(s, 'lab');
    } finally {
      await s.close();
    }
  };

  before(async () => {
    fake.reset();
    uninstall = installFakeVscode(fake);
    h = await startStandin();
    const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
    const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
    const { ProfilingController } = await import('../../../src/extension/profiling/profilingController');
    const { RunHistory } = await import('../../../src/extension/history/runHistory');
    const { ConsentGate } = await import('../../../src/extension/consent/consentGate');
    const { ConsentStore, MemoryMemento } = await import('../../../src/extension/consent/consentStore');
    const { registerLmTools } = await import('../../../src/extension/lm/lmTools');
    const journal = new KeyValueRestoreJournal(new MemoryStore());
    fake.settings['durabilityLens.connections'] = [{ name: 'lm', server: '127.0.0.1', port: h.server.port, database: 'lab', user: 'sa', encrypt: false, development: false }];
    manager = new ConnectionManager(new ConnectionStore(fake.secretStorage() as never), fakeOutput(lines) as never, journal, async () => undefined);
    history = new RunHistory(new MemoryMemento(), () => 20);
    const gate = new ConsentGate(new ConsentStore(new MemoryMemento()), fakeOutput(lines) as never);
    controller = new ProfilingController(fakeOutput(lines) as never, manager, { show: async () => undefined } as never, journal, history, undefined, undefined, gate);
    fake.quickPickAnswers.push((items) => items.find((i) => i.label === 'lm'));
    fake.inputAnswers.push(h.secret);
    fake.messageAnswers.push('Connect Anyway'); // encrypt false: the clear-text login is confirmed once
    assert.equal(await manager.connect(), true, lines.join('\n'));
    fake.documents = [fakeDocument(SCRIPT, 'file:///w/lm.sql'), fakeDocument('SELECT 1;\n', 'file:///w/notes.txt')];
    (fake.documents[1] as { languageId: string }).languageId = 'plaintext';
    registerLmTools({ output: fakeOutput(lines) as never, controller, connections: manager, history });
  });
  after(async () => {
    manager?.dispose();
    controller?.dispose();
    delete fake.settings['durabilityLens.connections'];
    fake.documents = [];
    fake.reset();
    uninstall?.();
    await h?.close();
  });
  beforeEach(() => {
    fake.workspaceFolders = undefined;
    fake.openFromDisk = false;
    fake.shown = [];
    fake.messageAnswers = [];
    fake.autoConsent = false;
    fake.trusted = true;
  });

  it('registers the four tools under the names package.json declares, with the same schemas and descriptions', () => {
    // As VS Code shows it: displayName and userDescription are %keys% of package.nls.json.
    const pkg = localizedManifest() as { contributes: { languageModelTools: Record<string, unknown>[] }; activationEvents: string[] };
    assert.deepEqual([...fake.lmTools!.keys()].sort(), Object.values(AgentTools).sort());
    assert.deepEqual(pkg.contributes.languageModelTools.map((t) => t.name), AGENT_TOOLS.map((t) => t.name));
    for (const t of AGENT_TOOLS) {
      const declared = pkg.contributes.languageModelTools.find((x) => x.name === t.name)!;
      assert.equal(declared.modelDescription, t.modelDescription, t.name);
      assert.equal(declared.displayName, t.displayName);
      assert.equal(declared.userDescription, t.userDescription);
      assert.equal(declared.toolReferenceName, t.toolReferenceName);
      assert.equal(declared.canBeReferencedInPrompt, true);
      assert.deepEqual(declared.inputSchema, t.inputSchema);
      assert.deepEqual(declared.tags, ['sql', 'sql-server', 'durability', t.changesDatabase ? 'runs-sql' : 'read-only']);
      assert.ok(pkg.activationEvents.includes(`onLanguageModelTool:${t.name}`), t.name);
    }
  });

  it('registers nothing on a VS Code without the lm API, and says so', async () => {
    const { registerLmTools } = await import('../../../src/extension/lm/lmTools');
    const saved = fake.lmTools;
    fake.lmTools = null;
    const log: string[] = [];
    try {
      assert.deepEqual(registerLmTools({ output: fakeOutput(log) as never, controller, connections: manager, history }), []);
    } finally {
      fake.lmTools = saved;
    }
    assert.match(log.join('\n'), /no language-model tool API/);
  });

  it('analyze_file reports the loop, its autocommit INSERT at line 10 and the lines worth measuring; refuses a non-SQL file', async () => {
    const text = await invoke(AgentTools.analyzeFile, { path: 'file:///w/lm.sql' });
    const summary = JSON.parse(text.slice(text.indexOf('\n\n{') + 2)) as { diagnostics: { code: string; line: number }[]; worthMeasuring: { startLine: number; endLine: number }[] };
    assert.ok(summary.diagnostics.some((d) => d.code === 'autocommit-dml-in-loop' && d.line === 10), text);
    assert.deepEqual(summary.worthMeasuring.map((w) => [w.startLine, w.endLine]), [[7, 12]]);
    await assert.rejects(invoke(AgentTools.analyzeFile, { path: 'file:///w/notes.txt' }), /not a SQL file/);
  });

  it('compare asks in its prepared confirmation what it will do, and runs nothing when the user declines the consent view', async () => {
    const prepared = tool(AgentTools.compareDurability).prepareInvocation!({ input: { path: 'file:///w/lm.sql', startLine: 8 } }, undefined);
    assert.equal(prepared.confirmationMessages!.title, 'Compare DELAYED_DURABILITY modes?');
    assert.match(rendered(prepared.confirmationMessages!.message.value), /run .* 7 times \(DISABLED, FORCED × 3 \+ 1 warm-up\) on database/);
    assert.match(rendered(prepared.confirmationMessages!.message.value), /switching its DELAYED_DURABILITY between DISABLED and FORCED/);
    assert.match(prepared.confirmationMessages!.message.value, /database \*\*lab\*\*/);
    // The modes and runs the user's settings ask for, not a fixed text (outside attack).
    fake.settings['durabilityLens.compare.modes'] = ['DISABLED', 'ALLOWED', 'FORCED'];
    fake.settings['durabilityLens.compare.repetitions'] = 5;
    try {
      const asked = tool(AgentTools.compareDurability).prepareInvocation!({ input: { path: 'file:///w/lm.sql', startLine: 8 } }, undefined);
      assert.match(rendered(asked.confirmationMessages!.message.value), /16 times \(DISABLED, ALLOWED, FORCED × 5 \+ 1 warm-up\).*switching its DELAYED_DURABILITY through DISABLED, ALLOWED, FORCED/);
    } finally {
      delete fake.settings['durabilityLens.compare.modes'];
      delete fake.settings['durabilityLens.compare.repetitions'];
    }
    const before = history.list().length;
    fake.messageAnswers = [undefined]; // the consent view is closed
    const text = await invoke(AgentTools.compareDurability, { path: 'file:///w/lm.sql', startLine: 8 });
    const consent = fake.shown.find((s) => s.modal && CONSENT.test(s.message));
    assert.ok(consent, JSON.stringify(fake.shown.map((s) => s.message)));
    assert.match(consent.detail!, /INSERT \(line 10\)/);
    assert.match(text, /^Nothing was measured for batch 3 \(lines 7–12\), after setup batches 1–2/);
    assert.equal(history.list().length, before);
    assert.equal(await setting(), 'DISABLED');
  });

  it('in Restricted Mode nothing runs and nothing is asked', async () => {
    fake.trusted = false;
    const text = await invoke(AgentTools.profile, { path: 'file:///w/lm.sql' });
    assert.match(text, /Restricted Mode/);
    assert.match(await invoke(AgentTools.compareDurability, { path: 'file:///w/lm.sql', startLine: 8 }), /^Nothing ran: this workspace is in Restricted Mode/);
    assert.equal(fake.shown.filter((s) => s.modal).length, 0);
    assert.equal(await setting(), 'DISABLED');
    // Reading is not running: the analysis still answers.
    assert.match(await invoke(AgentTools.analyzeFile, { path: 'file:///w/lm.sql' }), /"code": "autocommit-dml-in-loop"/);
  });

  it('a confirmed comparison runs, restores the setting and its verdict, causes and consistency read back through get_results', async () => {
    fake.messageAnswers = ['Run', 'Switch and Compare'];
    const text = await invoke(AgentTools.compareDurability, { path: 'file:///w/lm.sql', startLine: 8 });
    assert.match(text, /^It ran batch 3 \(lines 7–12\), after setup batches 1–2 \(lines 1–5\) of file:\/\/\/w\/lm\.sql on lab after the user confirmed it/);
    assert.match(text, /DELAYED_DURABILITY restored to DISABLED and verified/);
    assert.equal(await setting(), 'DISABLED');
    const read = await invoke(AgentTools.getResults, { kind: 'comparison' });
    const summary = JSON.parse(read.slice(read.indexOf('\n\n{') + 2)) as { kind: string; figures: string; verdict: { headline: string }; figuresByColumn: Record<string, Record<string, { median?: number }>>; consistency: unknown[] };
    assert.equal(summary.kind, 'comparison');
    assert.match(summary.figures, /^Stand-in figures/);
    assert.match(summary.verdict.headline, /FORCED/);
    assert.equal(summary.figuresByColumn.DISABLED!.commits!.median, 20);
    assert.ok(Array.isArray(summary.consistency));
    // A profile's result is the newest of kind "any" afterwards; "comparison" still finds the comparison.
    fake.messageAnswers = ['Run'];
    const profiled = await invoke(AgentTools.profile, { path: 'file:///w/lm.sql', startLine: 7, endLine: 12 });
    assert.match(profiled, /^It ran the selection \(lines 7–12\) of file:\/\/\/w\/lm\.sql on lab/);
    assert.match(profiled, /DELAYED_DURABILITY was not changed/);
    assert.match(await invoke(AgentTools.getResults, {}), /"kind": "profile"/);
    assert.match(await invoke(AgentTools.getResults, { kind: 'comparison' }), /"kind": "comparison"/);
  });

  it('profile with traceOverheadRuns: VS Code\'s confirmation and the consent view say 2×N runs; declined, nothing runs; confirmed, it alternates and the trace cost reads back', async () => {
    const input = { path: 'file:///w/lm.sql', startLine: 7, endLine: 12, traceOverheadRuns: 2 };
    const prepared = tool(AgentTools.profile).prepareInvocation!({ input }, undefined);
    assert.match(rendered(prepared.confirmationMessages!.message.value), /lm\.sql \(lines 7–12\) 4 times \(2 with the per-statement trace, 2 without, to measure what the trace costs\) on database \*\*lab\*\*/);
    const before = history.list().length;
    fake.messageAnswers = [undefined]; // the consent view is closed
    assert.match(await invoke(AgentTools.profile, input), /^Nothing was measured for the selection \(lines 7–12\)/);
    const consent = fake.shown.find((x) => x.modal && CONSENT.test(x.message));
    assert.ok(consent, JSON.stringify(fake.shown.map((x) => x.message)));
    assert.match(consent.detail!, /This profile runs the workload 4 times: 2 with the per-statement trace, 2 without \(alternating, to measure what the trace costs\): the agent's tool call asked for it \(traceOverheadRuns: 2\)\./);
    assert.match(consent.detail!, /── Trace-overhead measurement \(asked by the agent: traceOverheadRuns: 2\) \(not in the document\) — repeats everything above 4 times ──/);
    assert.equal(history.list().length, before);

    fake.shown = [];
    fake.messageAnswers = ['Run'];
    const ran = await invoke(AgentTools.profile, input);
    assert.ok(fake.shown.some((x) => x.modal && CONSENT.test(x.message)), 'a confirmation of the single run does not cover 4 runs');
    assert.match(ran, /^It ran the selection \(lines 7–12\) of file:\/\/\/w\/lm\.sql on lab 4 times \(traceOverheadRuns 2: alternating with and without the per-statement trace\) after the user confirmed/);
    assert.match(ran.split('\n\n')[1]!, /per-statement trace (slowed this run by [\d.]+ %|did not measurably slow this run|cost)/);
    const summary = JSON.parse(ran.slice(ran.indexOf('\n\n{') + 2)) as { traceOverhead: { runsEach: number; runsMade: number; withTraceMs: { runs: number } | null; withoutTraceMs: { runs: number } | null } };
    assert.equal(summary.traceOverhead.runsEach, 2);
    assert.equal(summary.traceOverhead.runsMade, 4);
    assert.equal(summary.traceOverhead.withTraceMs?.runs, 2, JSON.stringify(summary.traceOverhead));
    assert.equal(summary.traceOverhead.withoutTraceMs?.runs, 2);
    // It went into the run history, where get_results reads it.
    assert.equal(history.list().length, before + 1);
  });

  it('traceOverheadRuns: the user\'s setting when the agent omits it; refused with the trace off in settings or on compare, nothing asked', async () => {
    fake.settings['durabilityLens.xe.traceOverheadRuns'] = 3;
    try {
      const prepared = tool(AgentTools.profile).prepareInvocation!({ input: { path: 'file:///w/lm.sql' } }, undefined);
      assert.match(rendered(prepared.confirmationMessages!.message.value), /6 times \(3 with the per-statement trace, 3 without/);
    } finally {
      delete fake.settings['durabilityLens.xe.traceOverheadRuns'];
    }
    assert.match(tool(AgentTools.profile).prepareInvocation!({ input: { path: 'file:///w/lm.sql' } }, undefined).confirmationMessages!.message.value, /the whole file\\\) once on database/);
    fake.settings['durabilityLens.xe.statements'] = false;
    try {
      const input = { path: 'file:///w/lm.sql', traceOverheadRuns: 2 };
      const prepared = tool(AgentTools.profile).prepareInvocation!({ input }, undefined);
      assert.equal(prepared.confirmationMessages, undefined);
      assert.equal(await invoke(AgentTools.profile, input), '"traceOverheadRuns" measures what the per-statement trace costs, and the user\'s setting durabilityLens.xe.statements is false, so there is no trace to measure. Nothing was run. Ask again without traceOverheadRuns, or the user turns the setting back on.');
    } finally {
      delete fake.settings['durabilityLens.xe.statements'];
    }
    await assert.rejects(invoke(AgentTools.compareDurability, { path: 'file:///w/lm.sql', traceOverheadRuns: 2 }), /"traceOverheadRuns" is an option of durability_lens_profile only/);
    assert.equal(fake.shown.filter((x) => x.modal).length, 0);
  });

  it('refuses a routine\'s CREATE batch by line, running nothing', async () => {
    fake.documents.push(fakeDocument('CREATE PROCEDURE dbo.p\nAS\nINSERT INTO dbo.lm_rows (id) VALUES (1);\nGO\n', 'file:///w/p.sql'));
    const text = await invoke(AgentTools.profile, { path: 'file:///w/p.sql', startLine: 3 });
    assert.match(text, /running that batch would run its CREATE\/ALTER — redeploying it/);
    assert.equal(fake.shown.filter((s) => s.modal).length, 0);
  });

  describe('attacked', () => {
    let base: string;
    let ws: string;
    const fileUri = (p: string) => ({ toString: () => `file://${p}`, scheme: 'file', authority: '', path: p, fsPath: p });
    before(() => {
      base = mkdtempSync(join(tmpdir(), 'lens-lm-ws-'));
      ws = join(base, 'ws');
      mkdirSync(join(ws, 'sub'), { recursive: true });
      mkdirSync(join(base, 'outside'));
      writeFileSync(join(base, 'outside', 'secret.sql'), 'SELECT 1; -- outside the workspace 7f3a9c');
      writeFileSync(join(ws, 'in.sql'), SCRIPT);
      symlinkSync(join(base, 'outside', 'secret.sql'), join(ws, 'link.sql'));
      symlinkSync(join(base, 'outside'), join(ws, 'sub', 'dir'), 'dir');
    });
    after(() => rmSync(base, { recursive: true, force: true }));
    beforeEach(() => {
      fake.workspaceFolders = [{ uri: fileUri(ws) }];
      fake.openFromDisk = true;
      fake.opened = [];
    });

    it('reads a file inside the workspace folder; refuses one outside it by absolute path, "..", file: URI, a linked file or a linked folder, opening nothing', async () => {
      const inside = await invoke(AgentTools.analyzeFile, { path: 'in.sql' });
      assert.match(inside, /"code": "autocommit-dml-in-loop"/);
      assert.deepEqual(fake.opened, [join(ws, 'in.sql')]);
      fake.opened = [];
      for (const path of [join(base, 'outside', 'secret.sql'), '../outside/secret.sql', `file://${base}/outside/secret.sql`, 'link.sql', 'sub/dir/secret.sql']) {
        await assert.rejects(invoke(AgentTools.analyzeFile, { path }), /is outside this window's workspace folders; the Durability Lens tools read nothing outside them\. Nothing was read\./, path);
        await assert.rejects(invoke(AgentTools.profile, { path }), /outside this window's workspace folders/, path);
      }
      assert.deepEqual(fake.opened, []);
      assert.equal(fake.shown.filter((x) => x.modal).length, 0);
      // Nothing to confirm for a request that will be refused.
      const prepared = tool(AgentTools.compareDurability).prepareInvocation!({ input: { path: 'link.sql' } }, undefined);
      assert.equal(prepared.confirmationMessages, undefined);
      assert.match(String(prepared.invocationMessage), /refuses this request: link\.sql is outside/);
      // No folder open: only open documents are read.
      fake.workspaceFolders = undefined;
      await assert.rejects(invoke(AgentTools.analyzeFile, { path: join(ws, 'in.sql') }), /no folder is open: only open documents are read/);
      assert.match(await invoke(AgentTools.analyzeFile, { path: 'file:///w/lm.sql' }), /"code": "autocommit-dml-in-loop"/);
    });

    it('get_results reads only a .json inside the workspace, and never quotes a file that is not JSON', async () => {
      assert.match(await invoke(AgentTools.getResults, { file: join(base, 'outside', 'secret.json') }), /outside this window's workspace folders/);
      assert.match(await invoke(AgentTools.getResults, { file: 'in.sql' }), /^in\.sql is not a \.json file/);
      fake.written.set(`file://${ws}/notes.json`, 'password=hunter2');
      const notJson = await invoke(AgentTools.getResults, { file: 'notes.json' });
      assert.equal(notJson, 'notes.json is not a comparison document this version can read: it is not JSON.');
      assert.deepEqual(fake.fileReads.filter((f) => f.includes('outside')), []);
    });

    it('get_results reads a comparison saved as UTF-16 LE with a byte order mark, as the MCP server does', async () => {
      const doc = comparisonDocument({ runs: [makeRun({ mode: 'DISABLED', elapsedMs: 900 }), makeRun({ mode: 'FORCED', elapsedMs: 100 })], status: 'completed' });
      fake.writtenBytes.set(`file://${ws}/cmp16.json`, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(doc), 'utf16le')]));
      const text = await invoke(AgentTools.getResults, { file: 'cmp16.json' });
      assert.match(text, /^Durability comparison \(cmp16\.json\) — completed\./);
      assert.match(text, /FORCED ran 9\.0× faster than DISABLED/);
    });

    it('Markdown in the path is shown as text in the confirmation: no link, no emphasis', () => {
      const path = '[Run](command:workbench.action.terminal.new) **safe** `x`.sql';
      const message = tool(AgentTools.compareDurability).prepareInvocation!({ input: { path } }, undefined).confirmationMessages!.message.value;
      assert.doesNotMatch(message, /\]\(command:/);
      assert.match(message, /\\\[Run\\\]\\\(command:workbench\\\.action/);
      assert.match(message, /database \*\*lab\*\*/);
    });

    it('a second call while a run waits for its consent runs nothing and says a run is in progress', async () => {
      let answer!: (v: string | undefined) => void;
      fake.messageAnswers = [new Promise<string | undefined>((resolve) => (answer = resolve)) as never];
      const first = invoke(AgentTools.compareDurability, { path: 'file:///w/lm.sql', startLine: 8 });
      const deadline = Date.now() + 10_000;
      while (!controller.isRunning || !fake.shown.some((x) => x.modal)) {
        assert.ok(Date.now() < deadline, 'the first call never reached its consent view');
        await new Promise((r) => setImmediate(r));
      }
      const before = history.list().length;
      const second = await invoke(AgentTools.profile, { path: 'file:///w/lm.sql' });
      assert.equal(second, 'A Durability Lens run is already in progress in this window; wait for it to finish (or cancel it in its notification). Nothing was run.');
      answer(undefined); // the first one's consent view is closed
      assert.match(await first, /^Nothing was measured/);
      assert.equal(history.list().length, before);
      assert.equal(await setting(), 'DISABLED');
    });

    it('a comparison while another session holds the database\'s comparison lock changes nothing', async () => {
      const holder = await connect(h.profile, h.secret, { role: 'monitor' });
      try {
        const [granted] = await holder.query(GET_APPLOCK_SQL, [{ name: 'resource', type: 'nvarchar', value: lockResourceOf('lab') }]);
        assert.equal(Number(granted!.result), 0);
        const before = history.list().length;
        fake.autoConsent = true; // the consent view (if this script's is not remembered yet) answers Run
        fake.messageAnswers = ['Switch and Compare'];
        const text = await invoke(AgentTools.compareDurability, { path: 'file:///w/lm.sql', startLine: 8 });
        assert.ok(fake.shown.some((x) => /^Switch DELAYED_DURABILITY/.test(x.message)), 'the switch was asked and confirmed');
        // The agent learns what the user was told: who holds the database, not a list of possible reasons.
        assert.match(text, /^Nothing was measured for batch 3 \(lines 7–12\), after setup batches 1–2 \(lines 1–5\) of file:\/\/\/w\/lm\.sql: The comparison was not started and nothing was changed: Another comparison is running on lab: session \d+ .*holds it\./);
        assert.doesNotMatch(text, /declined the confirmation, was not connected/);
        assert.equal(history.list().length, before);
        assert.equal(await setting(), 'DISABLED');
      } finally {
        await holder.close();
      }
    });

    it('a comparison refused because another run owns the database tells the agent who, since when, and the original setting', async () => {
      // Another comparison (a CLI process on another machine) owns lab: it holds the lock, its marker says DISABLED → FORCED.
      const owner = await connect(h.profile, h.secret, { role: 'monitor' });
      const marker = { ...newMarker({ run: '0b0e8a52-5a8f-4c51-9a39-7b1d2f0c9e11', window: 'cli', original: 'DISABLED', applied: 'FORCED' }), host: 'BUILD-7', pid: 4242 };
      try {
        const [granted] = await owner.query(GET_APPLOCK_SQL, [{ name: 'resource', type: 'nvarchar', value: lockResourceOf('lab') }]);
        assert.equal(Number(granted!.result), 0);
        assert.equal(await addMarker(owner, 'lab', marker), true);
        await owner.execute('ALTER DATABASE [lab] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;');
        const before = history.list().length;
        fake.autoConsent = true;
        fake.messageAnswers = ['Switch and Compare'];
        const text = await invoke(AgentTools.compareDurability, { path: 'file:///w/lm.sql', startLine: 8 });
        assert.match(text, new RegExp(`^Nothing was measured for batch 3 .*: The comparison was not started and nothing was changed: A comparison owns \\[lab\\] since ${marker.since.replace(/\./g, '\\.')}: process 4242 on BUILD-7 \\(CLI\\), run ${marker.run}; the original setting is DISABLED; it last set FORCED`));
        assert.match(text, /It is running: session \d+/);
        assert.equal(fake.shown.some((x) => /^Switch DELAYED_DURABILITY/.test(x.message)), false, 'refused before the switch is asked');
        assert.equal(history.list().length, before);
        assert.equal(await setting(), 'FORCED', "the owner's FORCED is left alone");
      } finally {
        await owner.execute('ALTER DATABASE [lab] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;');
        await dropMarkerOf(owner, marker.run);
        await owner.close();
      }
      assert.equal(await setting(), 'DISABLED');
    });
  });
});
