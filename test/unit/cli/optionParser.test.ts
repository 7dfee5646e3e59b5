// The one option parser (src/cli/options): an option declared once is parsed the same way by every command that
// takes it, and unknown, repeated and value-less options are refused with the same words (exit 2) everywhere.
import { strict as assert } from 'node:assert';
import { resolve as resolvePath } from 'node:path';
import { commands } from '../../../src/cli/commands/index';
import { runCli } from '../../../src/cli/dispatch';
import type { CliCommand, CliIO } from '../../../src/cli/io';
import {
  accumulated,
  flag,
  Invalid,
  negatedFlag,
  numberOption,
  oneOfFlags,
  parseCommandLine,
  refused,
  section,
  text,
  type CommandLineSpec,
  type DeclaredCommand,
  type Section,
} from '../../../src/cli/options';

const SAMPLE = section('Sample', {
  file: text('--file', { placeholder: 'FILE', help: 'a file', once: true }),
  count: numberOption('--count', { placeholder: 'N', help: 'how many', rule: { integer: true, min: 1, max: 20 }, initial: 3 }),
  wait: numberOption('--wait', { placeholder: 'SECONDS', help: 'how long', rule: { min: 0, unit: 'seconds' }, initial: null, scale: (n) => Math.round(n * 1000) }),
  yes: flag('--yes', { help: 'go ahead' }),
  xe: negatedFlag('--no-xe', { help: 'no trace' }),
  tags: accumulated<string[]>('--tag', { placeholder: 'T', help: 'a tag; repeatable' }, () => [], (raw, current) => [...current, raw]),
  format: oneOfFlags<'markdown' | 'json'>('markdown', { '--markdown': { means: 'markdown', help: 'text' }, '--json': { means: 'json', help: 'JSON' } }),
  password: refused('--password', 'passwords are not accepted on the command line'),
});

const withFile: CommandLineSpec<readonly [typeof SAMPLE]> = { sections: [SAMPLE], operands: { label: 'FILE', max: 1, sameAs: 'file' } };
const withProgram: CommandLineSpec<readonly [typeof SAMPLE]> = { sections: [SAMPLE], program: true, operandHint: "put the program after '--'" };

function parsed<S extends readonly Section[]>(spec: CommandLineSpec<S>, ...args: string[]) {
  const r = parseCommandLine(spec, args);
  if (r instanceof Invalid) assert.fail(`refused: ${r.message}`);
  return r;
}

function problem(spec: CommandLineSpec, ...args: string[]): string {
  const r = parseCommandLine(spec, args);
  assert.ok(r instanceof Invalid, `accepted ${JSON.stringify(args)}`);
  return r.message;
}

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string; read: string[] }> {
  let out = '';
  let err = '';
  const read: string[] = [];
  const io: CliIO & { env: Record<string, string> } = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    readFile: (p) => {
      read.push(p);
      throw new Error('ENOENT: no such file (test)');
    },
    env: { DURABILITY_LENS_PASSWORD: 'pw' },
  };
  const code = await runCli(argv, io);
  return { code, out, err, read };
}

async function declared(): Promise<DeclaredCommand<readonly Section[], CliIO>[]> {
  return Promise.all(commands.map(async (c) => ('load' in c ? c.load() : c) as Promise<CliCommand> as Promise<DeclaredCommand<readonly Section[], CliIO>>));
}

/** What a command needs before its options (trace's subcommand). */
const lead = (name: string): string[] => (name === 'trace' ? ['trace', 'read'] : [name]);

describe('cli option parser', () => {
  it('fills a typed object: defaults where nothing was given, values where something was', () => {
    assert.deepEqual(parsed(withFile).options, { file: null, count: 3, wait: null, yes: false, xe: true, tags: [], format: 'markdown', password: null });
    const r = parsed(withFile, '--count', '7', '--wait', '1.5', '--yes', '--no-xe', '--tag', 'a', '--tag', 'b', '--json', 'w.sql');
    assert.deepEqual(r.options, { file: 'w.sql', count: 7, wait: 1500, yes: true, xe: false, tags: ['a', 'b'], format: 'json', password: null });
    assert.deepEqual(r.operands, []);
    assert.equal(r.program, null);
  });

  it('refuses an unknown option by its name, and tells --opt=value how to write it (the value goes after a space)', () => {
    assert.equal(problem(withFile, '--frobnicate'), "unknown option '--frobnicate'");
    assert.equal(problem(withFile, '-x'), "unknown option '-x'");
    assert.equal(problem(withFile, '--count=3'), "unknown option '--count=3' (write --count N, with a space)");
    assert.equal(problem(withFile, '--yes=true'), "unknown option '--yes=true' (--yes takes no value)");
    assert.equal(problem(withFile, '--password=hunter2'), 'passwords are not accepted on the command line');
    assert.equal(problem(withFile, '--password', 'hunter2'), 'passwords are not accepted on the command line');
  });

  it('says which option lacks its value: at the end, or given an empty or blank value', () => {
    assert.equal(problem(withFile, '--count'), '--count needs a value');
    assert.equal(problem(withFile, '--file', ''), '--file needs a value');
    assert.equal(problem(withFile, '--tag', '   '), '--tag needs a value');
  });

  it('a repeated option: the last value wins (scripts append overrides), except one taken once; repeatable ones add up', () => {
    assert.equal(parsed(withFile, '--count', '3', '--count', '5').options.count, 5);
    // Each value is still checked: a bad first value is refused although a good one follows.
    assert.equal(problem(withFile, '--count', '0', '--count', '5'), "--count must be a whole number from 1 to 20, not '0'");
    assert.equal(problem(withFile, '--file', 'a.sql', 'b.sql'), "FILE given twice ('a.sql' and 'b.sql'); give it once");
    assert.equal(problem(withFile, 'a.sql', '--file', 'b.sql'), "--file given twice ('a.sql' and 'b.sql'); give it once");
    assert.equal(parsed(withFile, '--yes', '--yes').options.yes, true);
    assert.deepEqual(parsed(withFile, '--tag', 'x', '--tag', 'x').options.tags, ['x', 'x']);
    // --markdown and --json set one field: the last one given wins, as before.
    assert.equal(parsed(withFile, '--json', '--markdown').options.format, 'markdown');
    assert.equal(parsed(withFile, '--markdown', '--json').options.format, 'json');
  });

  it('refuses numbers out of range, fractions where whole numbers are needed, and text that is no number', () => {
    for (const [value, message] of [
      ['0', "--count must be a whole number from 1 to 20, not '0'"],
      ['21', "--count must be a whole number from 1 to 20, not '21'"],
      ['2.5', "--count must be a whole number from 1 to 20, not '2.5'"],
      ['three', "--count must be a whole number from 1 to 20, not 'three'"],
      ['Infinity', "--count must be a whole number from 1 to 20, not 'Infinity'"],
      // Number() reads these as 3 or 16; on a command line they are typing mistakes, not numbers.
      ['0x3', "--count must be a whole number from 1 to 20, not '0x3'"],
      ['3e0', "--count must be a whole number from 1 to 20, not '3e0'"],
      ['0b11', "--count must be a whole number from 1 to 20, not '0b11'"],
      [' 3', "--count must be a whole number from 1 to 20, not ' 3'"],
    ]) assert.equal(problem(withFile, '--count', value!), message);
    assert.equal(parsed(withFile, '--wait', '.5').options.wait, 500);
    assert.equal(parsed(withFile, '--wait', '+1.25').options.wait, 1250);
    assert.equal(parsed(withFile, '--count', '007').options.count, 7);
    // A value that starts with '-' is still the option's value (a negative number is said to be out of range).
    assert.equal(problem(withFile, '--wait', '-1'), "--wait must be a number of seconds ≥ 0, not '-1'");
    assert.equal(parsed(withFile, '--count', '20').options.count, 20);
    assert.equal(parsed(withFile, '--wait', '0').options.wait, 0);
  });

  it('keeps Windows paths with spaces and backslashes exactly as given, as option values and as operands', () => {
    const file = 'C:\\Users\\Ann Lee\\My Scripts\\load test.sql';
    assert.equal(parsed(withFile, '--file', file).options.file, file);
    assert.equal(parsed(withFile, file).options.file, file);
    const unc = '\\\\fileserver\\share name\\reset.sql';
    assert.equal(parsed(withFile, unc).options.file, unc);
    // A lone '-' is an operand (a file of that name), not an option.
    assert.equal(parsed(withFile, '-').options.file, '-');
  });

  it("hands everything after '--' to the program, or ends the options where a command runs no program", () => {
    const r = parsed(withProgram, '--yes', '--', 'npm', 'test', '--count', '9');
    assert.deepEqual(r.program, ['npm', 'test', '--count', '9']);
    assert.equal(r.options.count, 3);
    assert.equal(problem(withProgram, '--'), "'--' must be followed by the program to run");
    assert.equal(problem(withProgram, 'npm'), "unexpected argument 'npm' (put the program after '--')");
    const files: CommandLineSpec<readonly [typeof SAMPLE]> = { sections: [SAMPLE], operands: { label: 'FILE', max: Infinity } };
    assert.deepEqual(parsed(files, 'a.sql', '--', '--json', '-odd.sql').operands, ['a.sql', '--json', '-odd.sql']);
    assert.equal(problem({ sections: [SAMPLE] }, 'stray'), "unexpected argument 'stray'");
  });

  it('finds a flag declared twice in one command when the command is first parsed', () => {
    const again = section('Again', { other: flag('--yes', { help: 'again' }) });
    assert.throws(() => parseCommandLine({ sections: [SAMPLE, again] }, []), /--yes is declared twice/);
  });
});

describe('cli options: the same words in every command', () => {
  it('every command refuses an unknown option the same way, with exit 2, its synopsis and nothing on stdout', async () => {
    for (const c of await declared()) {
      const r = await cli(...lead(c.name), '--bogus');
      assert.equal(r.code, 2, c.name);
      assert.match(r.err, new RegExp(`^durability-lens ${c.name}: unknown option '--bogus'\\.\\nUsage: durability-lens ${c.name}`), c.name);
      assert.match(r.err, new RegExp(`See \`durability-lens ${c.name} --help\` for every option\\.\\n$`), c.name);
      assert.equal(r.out, '', c.name);
    }
  });

  it('every option that takes a value says so in one wording when the value is missing, in every command', async () => {
    let checked = 0;
    for (const c of await declared()) {
      for (const s of c.declaration.sections) {
        for (const option of Object.values(s.options)) {
          for (const n of option.names) {
            if (n.placeholder === null || option.refusal !== undefined) continue;
            const r = await cli(...lead(c.name), n.flag);
            assert.equal(r.code, 2, `${c.name} ${n.flag}`);
            assert.match(r.err, new RegExp(`^durability-lens ${c.name}: ${n.flag} needs ${option.needs}\\.\\n`), `${c.name} ${n.flag}`);
            checked++;
          }
        }
      }
    }
    assert.ok(checked >= 50, `only ${checked} options checked`);
  });

  it('a second workload or program, a stray argument and a password are refused alike across commands', async () => {
    for (const [argv, message] of [
      [['profile', 'a.sql', 'b.sql'], "FILE given twice ('a.sql' and 'b.sql'); give it once"],
      [['compare', '--file', 'a.sql', '--file', 'b.sql'], "--file given twice ('a.sql' and 'b.sql'); give it once"],
      [['compare', '--command', 'npm test', '--command', 'make'], "--command given twice ('npm test' and 'make'); give it once"],
      [['record', '--command', 'npm test', '--command', 'make'], "--command given twice ('npm test' and 'make'); give it once"],
      [['compare', '--command', 'npm test', '--', 'make'], "give the program either with --command or after '--', not both"],
      [['record', '--command', 'npm test', '--', 'make'], "give the program either with --command or after '--', not both"],
      [['doctor', 'prod'], "unexpected argument 'prod'"],
      [['record', 'npm', 'test'], "unexpected argument 'npm' (put the program after '--')"],
      [['top-log', '--password=x'], 'passwords are not accepted on the command line'],
      [['mcp', '--password', 'x'], 'passwords are not accepted on the command line'],
    ] as const) {
      const r = await cli(...argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.ok(r.err.startsWith(`durability-lens ${argv[0]}: ${message}`), `${argv.join(' ')}:\n${r.err}`);
    }
  });

  it('a repeated option keeps its last value in every command (the reliability harness and the Action append overrides)', async () => {
    // The last --repeat is the one checked: 0 after a good 3 is refused, a good 5 after a bad 0 is not reached.
    for (const name of ['compare', 'mcp']) {
      const r = await cli(name, '--repeat', '3', '--repeat', '0');
      assert.equal(r.code, 2);
      assert.match(r.err, new RegExp(`^durability-lens ${name}: --repeat must be a whole number (≥ 1|from 1 to 20), not '0'`));
    }
    const r = await cli('top-log', '--top', '0', '--top', '5');
    assert.match(r.err, /^durability-lens top-log: --top must be a whole number from 1 to 200, not '0'/);
    // test/reliability/cliProcess.ts starts `compare … --repeat 1 … --repeat 2`: two measured runs per mode.
    const compare = (await declared()).find((c) => c.name === 'compare')!;
    const line = parseCommandLine(compare.declaration, ['--repeat', '1', '--no-warmup', '--repeat', '2', 'w.sql']);
    assert.ok(!(line instanceof Invalid));
    assert.deepEqual([(line.options as { repeat: number }).repeat, (line.options as { file: string }).file], [2, 'w.sql']);
  });

  it('numbers out of range are refused with the range, before anything connects', async () => {
    for (const [argv, message] of [
      [['doctor', '--port', '0'], "--port must be a whole number from 1 to 65535, not '0'"],
      [['doctor', '--port', '65536'], "--port must be a whole number from 1 to 65535, not '65536'"],
      [['compare', '--repeat', '0'], "--repeat must be a whole number ≥ 1, not '0'"],
      [['compare', '--owner-grace', '-5'], "--owner-grace must be a number of seconds from 0 to 2147483, not '-5'"],
      [['compare', '--fail-if-speedup-below', '0'], "--fail-if-speedup-below must be a positive number, not '0'"],
      [['profile', '--timeout', '-1'], "--timeout must be a number of seconds above 0 and at most 2147483, not '-1'"],
      [['record', '--duration', 'soon'], "--duration must be a number of seconds above 0 and at most 2147483, not 'soon'"],
      // A Node timer waits at most 2^31 - 1 ms: a longer --timeout fired at once and cancelled the run (outside attack).
      [['profile', '--timeout', '2200000'], "--timeout must be a number of seconds above 0 and at most 2147483, not '2200000'"],
      [['doctor', '--connect-timeout', '3000000'], "--connect-timeout must be a number of seconds above 0 and at most 2147483, not '3000000'"],
      [['profile', '--sample-interval', '2147483648'], "--sample-interval must be a number of milliseconds above 0 and at most 2147483647, not '2147483648'"],
      [['top-log', '--top', '0x10'], "--top must be a whole number from 1 to 200, not '0x10'"],
      [['profile', '--trace-overhead', '0x3'], "the trace-overhead measurement takes 2–10 runs each way, not '0x3'"],
      // Typed lists are taken as written: an empty item or a repeated level or mode is a typing mistake.
      [['compare', '--sessions', '1,,2'], "--sessions: '1,,2' has an empty item; write the levels as 1,4,16"],
      [['compare', '--sessions', '1,1'], '--sessions: 1 is given twice'],
      [['compare', '--modes', 'FORCED,forced'], '--modes: FORCED is given twice'],
      [['compare', '--modes', 'DISABLED,,FORCED'], "--modes: 'DISABLED,,FORCED' has an empty item; write the modes as DISABLED,FORCED"],
      [['mcp', '--repeat', '21'], "--repeat must be a whole number from 1 to 20, not '21'"],
      // The read-only client example of docs/agents.md copied as it stands: its example folder is not on this machine.
      [['mcp', '--root', '/home/me/sql-not-here'], `--root ${resolvePath('/home/me/sql-not-here')}: no such folder (the tools read files under it only)`],
      [['top-log', '--hours', '2161'], "--hours must be a number of hours above 0 and at most 2160, not '2161'"],
      [['top-log', '--top', '0'], "--top must be a whole number from 1 to 200, not '0'"],
    ] as const) {
      const r = await cli(...argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.ok(r.err.startsWith(`durability-lens ${argv[0]}: ${message}.\n`), `${argv.join(' ')}:\n${r.err}`);
    }
  });

  it('a Windows path with spaces reaches the file reader unchanged (compare --file, and FILE alone)', async () => {
    const file = 'C:\\Users\\Ann Lee\\My Scripts\\load test.sql';
    for (const argv of [['--file', file], [file]]) {
      const r = await cli('compare', '--connection', 'Server=127.0.0.1,1;Database=lab;User Id=me;Encrypt=true', ...argv);
      assert.equal(r.code, 2, r.err);
      assert.deepEqual(r.read, [file]);
      assert.match(r.err, /^durability-lens compare: cannot read C:\\Users\\Ann Lee\\My Scripts\\load test\.sql: ENOENT/);
    }
  });

  it("--help after '--' belongs to the program, not to the command", async () => {
    const r = await cli('record', '--', 'npm', 'test', '--help');
    assert.doesNotMatch(r.out, /^Usage:/);
    assert.equal(r.code, 2);
    assert.match(r.err, /--connection \(or --server\) is required/);
  });
});
