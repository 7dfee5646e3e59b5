// `durability-lens mcp` as an MCP client sees it: the official SDK's client starts the CLI over stdio (a real child
// process) and talks to the suite's server (useTestServer). Read-only by default — two tools, the run tools refused
// with nothing changed; with --allow-run and a connection the comparison runs, says it changed the database, restores
// DELAYED_DURABILITY and its results are readable; files outside --root or not .sql are refused.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AgentTools } from '../../../src/agent/toolDefinitions';
import { GET_APPLOCK_SQL, lockResourceOf } from '../../../src/profile/databaseLock';
import { useTestServer } from '../support';
import { s1Script } from '../samples';

const REPO = resolve(__dirname, '../../..');

type ToolText = { content: { type: string; text?: string }[]; isError?: boolean };
const textOf = (r: unknown): string => (r as ToolText).content.map((c) => c.text ?? '').join('\n');

describe('integration: durability-lens mcp over stdio (SDK client)', function () {
  this.timeout(180_000);
  const t = useTestServer();
  let dir: string;
  let table: string;
  const clients: Client[] = [];
  let stderr = '';
  /** The confirmations the server asked the user for (MCP elicitation), in order. */
  let asked: string[] = [];

  /** `ask`: how the client's user answers a run's confirmation; 'cannot': the client declares no elicitation. */
  async function start(extra: string[], ask: 'accept' | 'decline' | 'cannot' = 'accept'): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--root', dir, ...extra],
      cwd: REPO,
      // Only what the server needs: no HOME settings, the test password variable.
      env: { PATH: process.env.PATH ?? '', ...t.cliEnv() },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => void (stderr += d.toString('utf8')));
    const client = new Client({ name: 'durability-lens-test', version: '1.0.0' }, ask === 'cannot' ? {} : { capabilities: { elicitation: {} } });
    if (ask !== 'cannot') {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message);
        return ask === 'accept' ? { action: 'accept', content: { run: true } } : { action: 'decline' };
      });
    }
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lens-mcp-'));
    table = t.table('mcp_s1');
    await writeFile(join(dir, 's1.sql'), s1Script(40, table));
    await writeFile(join(dir, 'notes.txt'), 'not T-SQL');
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    stderr = '';
    asked = [];
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('read-only by default: lists the analyze and results tools only, analyses a sample, refuses a run and changes nothing', async () => {
    const before = await t.state();
    const client = await start([]);
    const tools = (await client.listTools()).tools;
    assert.deepEqual(tools.map((x) => x.name).sort(), [AgentTools.analyzeFile, AgentTools.getResults].sort());
    for (const tool of tools) assert.equal(tool.annotations?.readOnlyHint, true, tool.name);

    const analysis = await client.callTool({ name: AgentTools.analyzeFile, arguments: { path: 's1.sql' } });
    assert.notEqual((analysis as ToolText).isError, true, textOf(analysis));
    const summary = JSON.parse(textOf(analysis).slice(textOf(analysis).indexOf('\n\n{') + 2)) as { diagnostics: { code: string; line: number }[]; worthMeasuring: { startLine: number; endLine: number }[] };
    const loopInsert = s1Script(40, table).split('\n').findIndex((l) => /INSERT INTO/.test(l)) + 1;
    assert.ok(summary.diagnostics.some((d) => d.code === 'autocommit-dml-in-loop' && d.line === loopInsert), textOf(analysis));
    assert.equal(summary.worthMeasuring.length, 1);
    assert.ok(summary.worthMeasuring[0]!.startLine <= loopInsert && loopInsert <= summary.worthMeasuring[0]!.endLine);

    const refused = await client.callTool({ name: AgentTools.compareDurability, arguments: { path: 's1.sql' } });
    assert.equal((refused as ToolText).isError, true);
    assert.match(textOf(refused), /started without --allow-run/);
    assert.match(textOf(refused), /Nothing was run and nothing was changed/);
    const results = await client.callTool({ name: AgentTools.getResults, arguments: {} });
    assert.equal((results as ToolText).isError, true);
    assert.match(textOf(results), /No profile or comparison has run in this MCP server yet/);
    assert.deepEqual(await t.state(), before);
  });

  it('refuses files outside --root and files that are not .sql, reading nothing', async () => {
    const client = await start([]);
    const outside = await client.callTool({ name: AgentTools.analyzeFile, arguments: { path: join(REPO, 'samples', 's1-single-row-inserts.sql') } });
    assert.equal((outside as ToolText).isError, true);
    assert.match(textOf(outside), /outside the folder this server reads/);
    const dotdot = await client.callTool({ name: AgentTools.analyzeFile, arguments: { path: '../etc/passwd.sql' } });
    assert.match(textOf(dotdot), /outside the folder/);
    const notSql = await client.callTool({ name: AgentTools.analyzeFile, arguments: { path: 'notes.txt' } });
    assert.equal((notSql as ToolText).isError, true);
    assert.match(textOf(notSql), /not a \.sql file/);
  });

  it('--allow-run without a connection is a usage error', async () => {
    await assert.rejects(start(['--allow-run']));
    assert.match(stderr, /--allow-run needs a connection named on the command line/);
  });

  it('with --allow-run: lists the run tools as destructive, compares, says what it changed, restores and the results read back', async () => {
    const original = (await t.state()).setting;
    const client = await start(['--allow-run', ...t.cliConnection(), '--journal', join(dir, 'journal.json'), '--repeat', '1']);
    const tools = (await client.listTools()).tools;
    assert.deepEqual(tools.map((x) => x.name).sort(), Object.values(AgentTools).sort());
    const compareTool = tools.find((x) => x.name === AgentTools.compareDurability)!;
    assert.equal(compareTool.annotations?.destructiveHint, true);
    assert.match(compareTool.description ?? '', /CHANGES the database setting/);
    assert.match(compareTool.description ?? '', /--allow-run/);

    const compared = await client.callTool({ name: AgentTools.compareDurability, arguments: { path: 's1.sql' } }, undefined, { timeout: 150_000 });
    const text = textOf(compared);
    assert.notEqual((compared as ToolText).isError, true, text);
    assert.match(text, /^This call RAN the whole file: measured batch 3 \(lines \d+–\d+\), after setup batches 1–2 \(lines 1–\d+\) of s1\.sql against database /);
    assert.match(text, /switched DELAYED_DURABILITY of \S+ between DISABLED and FORCED/);
    assert.match(text, new RegExp(`restored it to ${original} \\(verified\\)`));
    if (t.standin) assert.match(text, /Figures: Stand-in figures/);
    const state = await t.state();
    assert.equal(state.setting, original);
    assert.deepEqual(state.eventSessions, []);

    const results = await client.callTool({ name: AgentTools.getResults, arguments: { kind: 'comparison' } });
    const summary = JSON.parse(textOf(results).slice(textOf(results).indexOf('\n\n{') + 2)) as { kind: string; status: string; verdict: { headline: string }; figuresByColumn: Record<string, Record<string, unknown>>; databaseState: string };
    assert.equal(summary.kind, 'comparison');
    assert.equal(summary.status, 'completed');
    assert.deepEqual(Object.keys(summary.figuresByColumn).sort(), ['DISABLED', 'FORCED']);
    assert.match(summary.verdict.headline, /FORCED/);
    assert.match(summary.databaseState, /restored/);
  });

  it('with --allow-run: the user is shown the T-SQL, the ALTERs and the event session before a comparison, and nothing runs when they decline', async () => {
    const before = await t.state();
    // The table's rows (-1 while it does not exist: the declined setup would have created it).
    const rows = async (): Promise<number> => {
      const session = await t.connect('monitor');
      try {
        const [exists] = await session.query(`SELECT OBJECT_ID(N'${table}') AS id`);
        if (exists!.id === null) return -1;
        const [row] = await session.query(`SELECT COUNT(*) AS n FROM ${table}`);
        return Number(row!.n);
      } finally {
        await session.close();
      }
    };
    const rowsBefore = await rows();
    const client = await start(['--allow-run', ...t.cliConnection(), '--journal', join(dir, 'journal.json'), '--repeat', '1'], 'decline');
    const declined = await client.callTool({ name: AgentTools.compareDurability, arguments: { path: 's1.sql' } }, undefined, { timeout: 60_000 });
    assert.equal((declined as ToolText).isError, true);
    assert.equal(textOf(declined), 'Declined: the user did not confirm this run in the MCP client\'s confirmation. Nothing was run and nothing was changed.');
    assert.equal(asked.length, 1);
    const shown = asked[0]!;
    const lines = s1Script(40, table).split('\n');
    const loopLine = lines.findIndex((l) => /^WHILE/.test(l)) + 1;
    assert.match(shown, /^Durability Lens \(MCP server, asked by an agent\): compare DELAYED_DURABILITY DISABLED, FORCED for the whole file/);
    assert.match(shown, new RegExp(`\\n\\s*${loopLine} │ WHILE`), shown);
    assert.match(shown, /ALTER DATABASE .* SET DELAYED_DURABILITY = FORCED/);
    assert.match(shown, /Trace: {4}each run creates an Extended Events session ON SERVER/);
    const after = await t.state();
    assert.equal(after.setting, before.setting);
    assert.deepEqual(after.eventSessions, []);
    assert.equal(await rows(), rowsBefore, 'the declined workload ran');
    assert.match(stderr, /the user declined the run: nothing was sent/);
  });

  it('with --allow-run, a client that cannot ask is refused and nothing runs; with --no-confirm it runs without asking and says so', async () => {
    const before = await t.state();
    const cannot = await start(['--allow-run', ...t.cliConnection(), '--journal', join(dir, 'journal.json')], 'cannot');
    const refused = await cannot.callTool({ name: AgentTools.profile, arguments: { path: 's1.sql' } }, undefined, { timeout: 60_000 });
    assert.equal((refused as ToolText).isError, true);
    assert.match(textOf(refused), /^Refused: this MCP client cannot ask the user to confirm a run .* Nothing was run and nothing was changed\. .*--allow-run --no-confirm/);
    assert.deepEqual((await t.state()).eventSessions, before.eventSessions);
    assert.doesNotMatch(stderr, /profiling/);
    const standing = await start(['--allow-run', '--no-confirm', ...t.cliConnection(), '--journal', join(dir, 'journal.json')], 'cannot');
    const tool = (await standing.listTools()).tools.find((x) => x.name === AgentTools.profile)!;
    assert.match(tool.description ?? '', /--allow-run --no-confirm .* without asking each time/);
    const ran = await standing.callTool({ name: AgentTools.profile, arguments: { path: 's1.sql' } }, undefined, { timeout: 120_000 });
    assert.notEqual((ran as ToolText).isError, true, textOf(ran));
    assert.match(textOf(ran), /\(allowed by --allow-run --no-confirm, without asking\)/);
    assert.equal(asked.length, 0);
  });

  it('--no-confirm without --allow-run is a usage error', async () => {
    await assert.rejects(start(['--no-confirm']));
    assert.match(stderr, /--no-confirm goes with --allow-run/);
  });

  it('with --allow-run: profiles the batch at a line and refuses a routine\'s CREATE batch', async () => {
    const client = await start(['--allow-run', ...t.cliConnection(), '--journal', join(dir, 'journal.json')]);
    const lines = s1Script(40, table).split('\n');
    // The setup batch first (it creates the table), then the loop batch by one of its lines: setup runs before it.
    const loopLine = lines.findIndex((l) => /^WHILE/.test(l)) + 1;
    const profiled = await client.callTool({ name: AgentTools.profile, arguments: { path: 's1.sql', startLine: loopLine } }, undefined, { timeout: 120_000 });
    const text = textOf(profiled);
    assert.notEqual((profiled as ToolText).isError, true, text);
    assert.match(text, /^This call RAN batch 3 \(lines \d+–\d+\), after setup batches 1–2 \(lines 1–\d+\) of s1\.sql/);
    assert.match(text, /DELAYED_DURABILITY was not changed/);
    await writeFile(join(dir, 'proc.sql'), 'CREATE OR ALTER PROCEDURE dbo.lens_never_created\nAS\nSELECT 1;\nGO\n');
    const refused = await client.callTool({ name: AgentTools.profile, arguments: { path: 'proc.sql', startLine: 3 } });
    assert.equal((refused as ToolText).isError, true);
    assert.match(textOf(refused), /would run its CREATE\/ALTER — redeploying it/);
  });

  it('with --allow-run: profile takes traceOverheadRuns (as profile --trace-overhead): lists it, runs 2×N times alternating, says so and the trace cost reads back; compare refuses it', async () => {
    const client = await start(['--allow-run', ...t.cliConnection(), '--journal', join(dir, 'journal.json')]);
    const profileTool = (await client.listTools()).tools.find((x) => x.name === AgentTools.profile)!;
    const option = (profileTool.inputSchema.properties as Record<string, { type: string; minimum: number; maximum: number; description: string }>).traceOverheadRuns!;
    assert.deepEqual([option.type, option.minimum, option.maximum], ['integer', 2, 10]);
    assert.match(option.description, /2×N runs in all/);
    const lines = s1Script(40, table).split('\n');
    const loopLine = lines.findIndex((l) => /^WHILE/.test(l)) + 1;
    const profiled = await client.callTool({ name: AgentTools.profile, arguments: { path: 's1.sql', startLine: loopLine, traceOverheadRuns: 2 } }, undefined, { timeout: 150_000 });
    const text = textOf(profiled);
    assert.notEqual((profiled as ToolText).isError, true, text);
    assert.match(text, /^This call RAN batch 3 \(lines \d+–\d+\), after setup batches 1–2 \(lines 1–\d+\) of s1\.sql against database \S+ on \S+ 4 time\(s\) \(traceOverheadRuns 2: 2 with the per-statement trace and 2 without, alternating\) \(confirmed by the user in the MCP client\)/);
    assert.match(text, /changed the database each time\. DELAYED_DURABILITY was not changed\./);
    assert.match(stderr, /profiling batch 3 .* it runs the workload 4 times: 2 with the per-statement trace, 2 without \(alternating, to measure what the trace costs\) \(asking the user first\)/);
    // The event sessions are ours, not the script's: said too (outside attack unseen42).
    assert.match(stderr, /\(asking the user first\)\.\nTrace: {4}creates Extended Events sessions ON SERVER \(ON DATABASE on Azure SQL Database\) named durability_lens_… .*drops them after the run; measuring the trace's cost, again for each of the 2 runs with the trace/);
    const summary = JSON.parse(text.slice(text.indexOf('\n\n{') + 2)) as { traceOverhead: { status: string; runsEach: number; runsMade: number; withTraceMs: { runs: number } | null; withoutTraceMs: { runs: number } | null; lines: string[] } };
    assert.equal(summary.traceOverhead.runsEach, 2);
    assert.equal(summary.traceOverhead.runsMade, 4);
    assert.equal(summary.traceOverhead.withTraceMs?.runs, 2, JSON.stringify(summary.traceOverhead));
    assert.equal(summary.traceOverhead.withoutTraceMs?.runs, 2);
    // Its answer is in the head the agent quotes, as the report words it (stand-in figures said as such).
    assert.ok(text.split('\n\n')[1]!.includes(summary.traceOverhead.lines[0]!), text);
    if (t.standin) assert.match(summary.traceOverhead.lines[0]!, /stand-in figures, not SQL Server's/);
    const refused = await client.callTool({ name: AgentTools.compareDurability, arguments: { path: 's1.sql', traceOverheadRuns: 2 } });
    assert.equal((refused as ToolText).isError, true);
    assert.match(textOf(refused), /"traceOverheadRuns" is an option of durability_lens_profile only/);
    const tooMany = await client.callTool({ name: AgentTools.profile, arguments: { path: 's1.sql', traceOverheadRuns: 11 } });
    assert.equal((tooMany as ToolText).isError, true);
    assert.match(textOf(tooMany), /from 2 to 10/);
  });

  it('with --allow-run: a second call while a comparison runs is refused at once; a comparison while another session holds the database is refused, nothing changed', async () => {
    const original = (await t.state()).setting;
    const client = await start(['--allow-run', ...t.cliConnection(), '--journal', join(dir, 'journal.json'), '--repeat', '1']);
    // Two calls on one server: the first runs, the second finds it running and runs nothing.
    const first = client.callTool({ name: AgentTools.compareDurability, arguments: { path: 's1.sql' } }, undefined, { timeout: 150_000 });
    const deadline = Date.now() + 60_000;
    while (!/comparing DELAYED_DURABILITY/.test(stderr)) {
      assert.ok(Date.now() < deadline, `the first comparison never started: ${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const second = await client.callTool({ name: AgentTools.profile, arguments: { path: 's1.sql' } });
    assert.equal((second as ToolText).isError, true);
    assert.equal(textOf(second), 'A profile or comparison started by this server is still running; wait for it (one run at a time). Nothing was run.');
    assert.notEqual(((await first) as ToolText).isError, true, textOf(await first));

    // Another process's comparison (here: a session holding the same lock) owns the database.
    const holder = await t.connect('monitor');
    try {
      const [granted] = await holder.query(GET_APPLOCK_SQL, [{ name: 'resource', type: 'nvarchar', value: lockResourceOf(t.database) }]);
      assert.equal(Number(granted!.result), 0);
      const refused = await client.callTool({ name: AgentTools.compareDurability, arguments: { path: 's1.sql' } }, undefined, { timeout: 60_000 });
      assert.equal((refused as ToolText).isError, true);
      assert.match(textOf(refused), /^Refused: /);
      assert.match(textOf(refused), /Nothing was changed\.$/);
      const state = await t.state();
      assert.equal(state.setting, original);
      assert.deepEqual(state.eventSessions, []);
    } finally {
      await holder.close();
    }
  });
});
