// The one command-line parser every command uses: argv → a typed object (one field per declared option, defaults
// applied) plus operands and the program after `--`, or the first usage error, worded the same for every command.
// A value is the next argument as given; an option given again replaces its value (scripts append overrides) unless
// it is taken once (--file) or adds up (--tolerance); flags may repeat.
import { Invalid, invalid, type OptionName, type OptionSpec, type Section, type ValuesOf } from './spec';

/** Arguments that are not options: FILE (compare, profile), FILE|DIR|GLOB… (analyze). */
export interface Operands {
  /** How the usage and the messages name them. */
  readonly label: string;
  /** At most this many (Infinity: any number). */
  readonly max: number;
  /** The field of the option an operand is another spelling of (`--file`): it is applied through that option. */
  readonly sameAs?: string;
}

/** What a command takes on its command line. */
export interface CommandLineSpec<S extends readonly Section[] = readonly Section[]> {
  /** The sections of options, in the order the usage lists them. */
  readonly sections: S;
  /** None when absent: an argument that is not an option is a usage error. */
  readonly operands?: Operands;
  /** `--` hands the rest to a program (compare, record); without it `--` ends the options. */
  readonly program?: boolean;
  /** Said after "unexpected argument 'x'" (record: "put the program after '--'"). */
  readonly operandHint?: string;
}

export interface ParsedCommandLine<S extends readonly Section[]> {
  readonly options: ValuesOf<S>;
  readonly operands: readonly string[];
  /** The program and its arguments after `--`, or null. */
  readonly program: readonly string[] | null;
}

interface Entry {
  readonly key: string;
  readonly spec: OptionSpec<unknown>;
  readonly name: OptionName;
}

/** Every flag of the spec → its option; a flag declared twice is a programming error, found on first use. */
export function flagTable(spec: CommandLineSpec): Map<string, Entry> {
  const table = new Map<string, Entry>();
  for (const s of spec.sections) {
    for (const [key, option] of Object.entries(s.options)) {
      for (const name of option.names) {
        if (table.has(name.flag)) throw new Error(`${name.flag} is declared twice`);
        table.set(name.flag, { key, spec: option, name });
      }
    }
  }
  if (spec.operands?.sameAs !== undefined && ![...table.values()].some((e) => e.key === spec.operands!.sameAs)) {
    throw new Error(`operands fill '${spec.operands.sameAs}', which no option declares`);
  }
  return table;
}

/** An argument that names an option: `-x`, `--name`; a lone `-` is an operand (a file of that name). */
function looksLikeOption(arg: string): boolean {
  return arg.length > 1 && arg.startsWith('-');
}

/** The message for an option this command does not have; `--repeat=3` is told how to write it. */
function unknownOption(arg: string, table: ReadonlyMap<string, Entry>): string {
  const eq = arg.indexOf('=');
  const known = eq > 0 ? table.get(arg.slice(0, eq)) : undefined;
  if (known?.spec.refusal !== undefined) return known.spec.refusal;
  if (known && known.name.placeholder === null) return `unknown option '${arg}' (${known.name.flag} takes no value)`;
  // The hint names the placeholder, not the value: `--connection=…;Password=…` is not echoed a second time.
  if (known) return `unknown option '${arg}' (write ${known.name.flag} ${known.name.placeholder}, with a space)`;
  return `unknown option '${arg}'`;
}

export function parseCommandLine<S extends readonly Section[]>(spec: CommandLineSpec<S>, args: readonly string[]): ParsedCommandLine<S> | Invalid {
  const table = flagTable(spec);
  const values: Record<string, unknown> = {};
  for (const s of spec.sections) for (const [key, option] of Object.entries(s.options)) values[key] = option.initial();
  /** The first value of each option given, to name both when an option that is taken once comes again. */
  const given = new Map<string, string>();
  const operands: string[] = [];
  let program: string[] | null = null;
  let optionsEnded = false;

  const set = (entry: Entry, spelled: string, raw: string): Invalid | null => {
    const first = given.get(entry.key);
    if (first !== undefined && entry.spec.once) {
      return invalid(`${spelled} given twice ('${first}' and '${raw}'); give it once`);
    }
    const value = entry.spec.apply(raw, values[entry.key]);
    if (value instanceof Invalid) return value;
    values[entry.key] = value;
    if (first === undefined) given.set(entry.key, raw);
    return null;
  };

  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--' && !optionsEnded) {
      if (!spec.program) {
        optionsEnded = true;
        continue;
      }
      program = args.slice(i + 1);
      if (program.length === 0) return invalid("'--' must be followed by the program to run");
      break;
    }
    if (!optionsEnded && looksLikeOption(arg)) {
      const entry = table.get(arg);
      if (!entry) return invalid(unknownOption(arg, table));
      if (entry.spec.refusal !== undefined) return invalid(entry.spec.refusal);
      let raw = entry.name.means ?? '';
      if (entry.name.placeholder !== null) {
        const next = args[i + 1];
        if (next === undefined || next.trim() === '') return invalid(`${arg} needs ${entry.spec.needs}`);
        raw = next;
        i++;
      }
      const problem = set(entry, arg, raw);
      if (problem) return problem;
      continue;
    }
    const o = spec.operands;
    if (o?.sameAs !== undefined) {
      const entry = [...table.values()].find((e) => e.key === o.sameAs)!;
      const problem = set(entry, o.label, arg);
      if (problem) return problem;
    } else if (o !== undefined && operands.length < o.max) operands.push(arg);
    else if (o !== undefined) return invalid(`at most ${o.max} ${o.label}, got '${arg}' too`);
    else return invalid(`unexpected argument '${arg}'${spec.operandHint ? ` (${spec.operandHint})` : ''}`);
  }
  return { options: values as ValuesOf<S>, operands, program };
}
