// Help texts and docs/cli.md against the option declarations: every option a command's synopsis or description names
// is one it takes, every `durability-lens <command> …` line of docs/cli.md uses only that command's options, and the
// doc's table of which command takes which option is the one the declarations give.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { commands } from '../../../src/cli/commands/index';
import type { CliCommand, CliIO } from '../../../src/cli/io';
import { optionFlags, sectionUsage, type DeclaredCommand, type Section } from '../../../src/cli/options';

const root = resolve(__dirname, '../../..');
const doc = readFileSync(join(root, 'docs/cli.md'), 'utf8');
type Declared = DeclaredCommand<readonly Section[], CliIO>;

async function declared(): Promise<Declared[]> {
  return Promise.all(commands.map(async (c) => ('load' in c ? c.load() : c) as Promise<CliCommand> as Promise<Declared>));
}

/** `--name` words in a text; `-- durability-lens: setup` (a T-SQL comment) has a space and is not one. */
const flagsIn = (text: string): string[] => [...new Set(text.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? [])];

/** The doc's table rows: options that the same commands take, grouped, in the order the commands declare them. */
function optionTable(list: readonly Declared[]): string {
  const takenBy = new Map<string, string[]>();
  for (const c of list) for (const f of optionFlags(c.declaration)) takenBy.set(f, [...(takenBy.get(f) ?? []), c.name]);
  const rows = new Map<string, string[]>();
  for (const [f, names] of takenBy) rows.set(names.join(', '), [...(rows.get(names.join(', ')) ?? []), f]);
  return ['| options | commands |', '|---|---|', ...[...rows].map(([names, flags]) => `| ${flags.map((f) => `\`${f}\``).join(' ')} | ${names} |`)].join('\n');
}

describe('cli options: help and docs/cli.md match the declarations', () => {
  it('the usage of every command lists each option it takes, once, under its section', async () => {
    for (const c of await declared()) {
      for (const s of c.declaration.sections) assert.ok(c.usage.includes(sectionUsage(s)), `${c.name}: section ${s.title}`);
      for (const f of optionFlags(c.declaration)) {
        assert.equal(c.usage.split('\n').filter((l) => l.startsWith(`  ${f} `) || l === `  ${f}`).length, 1, `${c.name} ${f}`);
      }
    }
  });

  it('every option a synopsis or description names is one the command takes', async () => {
    for (const c of await declared()) {
      const named = flagsIn(`${c.declaration.synopsis}\n${c.declaration.about ?? ''}`);
      const own = new Set(optionFlags(c.declaration));
      assert.deepEqual(named.filter((f) => !own.has(f)), [], c.name);
    }
  });

  it('a command that runs nothing changing without --yes names --yes in its synopsis (the first line a usage error shows)', async () => {
    const withYes = (await declared()).filter((c) => optionFlags(c.declaration).includes('--yes'));
    assert.deepEqual(withYes.map((c) => c.name).sort(), ['compare', 'profile']);
    for (const c of withYes) assert.ok(flagsIn(c.declaration.synopsis).includes('--yes'), `${c.name}: ${c.declaration.synopsis}`);
  });

  it("every `durability-lens <command>` line in docs/cli.md uses only that command's options", async () => {
    const list = await declared();
    const lines = doc.replace(/\\\n\s*/g, ' ').split('\n').filter((l) => /^(\S+=\S+ )*durability-lens [a-z-]+/.test(l.replace(/^`/, '')));
    assert.ok(lines.length >= 10, `only ${lines.length} command lines found`);
    for (const line of lines) {
      const name = /durability-lens ([a-z-]+)/.exec(line)![1]!;
      const command = list.find((c) => c.name === name);
      assert.ok(command, `docs/cli.md names a command the CLI does not have: ${line}`);
      const own = new Set(optionFlags(command.declaration));
      const program = line.indexOf(' -- ');
      assert.deepEqual(flagsIn(program < 0 ? line : line.slice(0, program)).filter((f) => !own.has(f)), [], line);
    }
  });

  it("docs/cli.md's table of which command takes which option is the declarations'", async () => {
    const m = /<!-- options-table:start -->\n([\s\S]*?)\n<!-- options-table:end -->/.exec(doc);
    assert.ok(m, 'docs/cli.md has the options table between its markers');
    assert.equal(m[1], optionTable(await declared()), 'paste the expected table into docs/cli.md');
  });
});
