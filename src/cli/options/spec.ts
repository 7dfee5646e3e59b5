// A command-line option declared as data: its name, the value it takes, its help line, its default and how its text
// becomes a typed value. The parser (parse.ts) and the usage text (usage.ts) read the same declarations, so a
// command's --help and what it accepts cannot drift apart.

/** Why an option's text is not a value of it: the whole message, naming the option ("--port must be …"). */
export class Invalid {
  constructor(readonly message: string) {}
}

export function invalid(message: string): Invalid {
  return new Invalid(message);
}

/** One name an option answers to, as the usage shows it. */
export interface OptionName {
  /** `--repeat` */
  readonly flag: string;
  /** What the usage shows after the name (`N`, `PATH`); null: a flag, which takes no value. */
  readonly placeholder: string | null;
  /** The usage line; a '\n' starts a continuation line under the first. */
  readonly help: string;
  /** For a flag: the text `apply` receives when this name is given. */
  readonly means?: string;
}

export interface OptionSpec<T> {
  /** Usually one; a field two flags set (--markdown/--json) has both, and the last one given wins. */
  readonly names: readonly OptionName[];
  /** The value when the option is not given (a fresh one per parse: lists are appended to). */
  readonly initial: () => T;
  /** The option's text (a flag: its `means`) on top of the value so far → the new value, or why not. */
  apply(raw: string, current: T): T | Invalid;
  /** May be given more than once, each adding to the value (--tolerance). Otherwise the last one given wins. */
  readonly repeatable: boolean;
  /** A second value is a usage error instead of replacing the first (--file: two workloads are a mistake). */
  readonly once: boolean;
  /** What a missing value is called in "--sarif needs a file to write" (default "a value"). */
  readonly needs: string;
  /** A line the usage prints above this option, e.g. "Or, instead of --connection:". */
  readonly heading?: string;
  /** Refused with this message whenever given (e.g. --password); not shown in the usage. */
  readonly refusal?: string;
}

/** Options keyed by the field of the parsed object each one fills. */
export type Options = Readonly<Record<string, OptionSpec<unknown>>>;

/** A titled group of options in the usage ("Connection:"), shared by the commands that take it. */
export interface Section<O extends Options = Options> {
  readonly title: string;
  readonly options: O;
  /** Usage lines after the options (already indented): `-- PROGRAM [ARGS...]`, a note on the section. */
  readonly after?: string;
}

export type ValueOf<S> = S extends OptionSpec<infer T> ? T : never;

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** The typed object one parse builds from a command's sections: a field per option. */
export type ValuesOf<S extends readonly Section[]> = { -readonly [K in keyof UnionToIntersection<S[number]['options']>]: ValueOf<UnionToIntersection<S[number]['options']>[K]> };

interface Common {
  readonly help: string;
  readonly heading?: string;
}

interface Valued extends Common {
  readonly placeholder: string;
  readonly needs?: string;
  /** Refuse a second value (default: the last one given wins, as scripts that append an override expect). */
  readonly once?: boolean;
}

function single<T>(flag: string, placeholder: string | null, o: Common & { needs?: string; once?: boolean }, initial: () => T, apply: (raw: string, current: T) => T | Invalid, repeatable = false): OptionSpec<T> {
  return { names: [{ flag, placeholder, help: o.help }], initial, apply, repeatable, once: o.once === true, needs: o.needs ?? 'a value', heading: o.heading };
}

/** `--yes`: false unless given. */
export function flag(name: string, o: Common): OptionSpec<boolean> {
  return single(name, null, o, () => false, () => true);
}

/** `--no-xe`: true unless given. */
export function negatedFlag(name: string, o: Common): OptionSpec<boolean> {
  return single(name, null, o, () => true, () => false);
}

/** Flags that set one field to their own value (`--markdown` | `--json`); the last one given wins. */
export function oneOfFlags<V extends string>(initial: V, flags: Readonly<Record<string, { means: V; help: string }>>): OptionSpec<V> {
  const names = Object.entries(flags).map(([f, d]) => ({ flag: f, placeholder: null, help: d.help, means: d.means }));
  return { names, initial: () => initial, apply: (raw) => raw as V, repeatable: false, once: false, needs: 'a value' };
}

/** Any non-blank text (a path, a name, a connection string), kept as given; null unless given. */
export function text(name: string, o: Valued): OptionSpec<string | null> {
  return single<string | null>(name, o.placeholder, o, () => null, (raw) => raw);
}

/** Text with a default (`--password-env VAR`, default DURABILITY_LENS_PASSWORD). */
export function textWithDefault(name: string, initial: string, o: Valued): OptionSpec<string> {
  return single(name, o.placeholder, o, () => initial, (raw) => raw);
}

/** Text checked or converted by `convert`; `o.initial` (default null) unless given. */
export function converted<T>(name: string, o: Valued, convert: (raw: string) => T | Invalid): OptionSpec<T | null>;
export function converted<T, D>(name: string, o: Valued & { initial: D }, convert: (raw: string) => T | Invalid): OptionSpec<T | D>;
export function converted<T, D>(name: string, o: Valued & { initial?: D }, convert: (raw: string) => T | Invalid): OptionSpec<T | D | null> {
  return single<T | D | null>(name, o.placeholder, o, () => (o.initial === undefined ? null : o.initial), convert);
}

/** A repeatable option whose values accumulate: `convert` adds one value to what earlier ones built. */
export function accumulated<T>(name: string, o: Valued, initial: () => T, convert: (raw: string, current: T) => T | Invalid): OptionSpec<T> {
  return single(name, o.placeholder, o, initial, convert, true);
}

/**
 * The longest time a Node timer waits: 2^31 − 1 ms (about 24.8 days). A longer one fires at once with a
 * TimeoutOverflowWarning, so a `--timeout` beyond it would cancel a run after a millisecond: options that become timers
 * take at most this.
 */
export const TIMER_LIMIT_MS = 2 ** 31 - 1;
export const TIMER_LIMIT_SECONDS = Math.floor(TIMER_LIMIT_MS / 1000);

export interface NumberRule {
  /** Whole numbers only. */
  readonly integer?: boolean;
  /** Lowest value allowed (inclusive). */
  readonly min?: number;
  /** Lowest value excluded (`above: 0` = positive). */
  readonly above?: number;
  /** Highest value allowed (inclusive). */
  readonly max?: number;
  /** "seconds", "hours": said in the message. */
  readonly unit?: string;
}

/** "a whole number from 1 to 20", "a positive number of seconds", "a number of hours above 0 and at most 2160". */
export function describeRange(r: NumberRule): string {
  const kind = r.integer ? 'a whole number' : 'a number';
  const unit = r.unit ? ` of ${r.unit}` : '';
  if (r.min !== undefined && r.max !== undefined) return `${kind}${unit} from ${r.min} to ${r.max}`;
  if (r.above === 0 && r.max === undefined) return `${r.integer ? 'a positive whole number' : 'a positive number'}${unit}`;
  if (r.above !== undefined) return `${kind}${unit} above ${r.above}${r.max !== undefined ? ` and at most ${r.max}` : ''}`;
  if (r.min !== undefined) return `${kind}${unit} ≥ ${r.min}`;
  return r.max !== undefined ? `${kind}${unit} at most ${r.max}` : `${kind}${unit}`;
}

/** Is `n` inside the rule's range (and whole, when it must be)? */
export function inRange(n: number, r: NumberRule): boolean {
  if (!Number.isFinite(n)) return false;
  if (r.integer && !Number.isInteger(n)) return false;
  if (r.min !== undefined && n < r.min) return false;
  if (r.above !== undefined && n <= r.above) return false;
  return r.max === undefined || n <= r.max;
}

/**
 * A number as people write it on a command line: decimal digits with an optional sign and fraction. JavaScript's
 * Number() would also take `0x10`, `1e3`, `0b1`, `' 3 '` and `''`, which a script passes only by mistake.
 */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** The number in `raw` when it is within the rule, else the one message every numeric option gives. */
export function parseNumber(name: string, raw: string, r: NumberRule): number | Invalid {
  const n = DECIMAL.test(raw) ? Number(raw) : Number.NaN;
  return inRange(n, r) ? n : invalid(`${name} must be ${describeRange(r)}, not '${raw}'`);
}

/** A number within `rule`, stored as `scale(n)` (seconds → ms); `initial` when not given. */
export function numberOption<D extends number | null>(name: string, o: Valued & { rule: NumberRule; initial: D; scale?: (n: number) => number }): OptionSpec<number | D> {
  const scale = o.scale ?? ((n: number) => n);
  return single<number | D>(name, o.placeholder, o, () => o.initial, (raw) => {
    const n = parseNumber(name, raw, o.rule);
    return n instanceof Invalid ? n : scale(n);
  });
}

/** "a, b or c" */
export function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** One of a few words (case-insensitive), each standing for a value. */
export function choice<V>(name: string, o: Valued, values: Readonly<Record<string, V>>, initial: V): OptionSpec<V> {
  const words = Object.keys(values);
  return single(name, o.placeholder, o, () => initial, (raw) => {
    const word = words.find((w) => w.toLowerCase() === raw.trim().toLowerCase());
    return word === undefined ? invalid(`${name} must be ${orList(words)}, not '${raw}'`) : values[word]!;
  });
}

/** Declared only to be refused with its message (`--password`: passwords never come from argv); not in the usage. */
export function refused(name: string, refusal: string): OptionSpec<null> {
  return { names: [{ flag: name, placeholder: null, help: '' }], initial: () => null, apply: () => invalid(refusal), repeatable: false, once: false, needs: 'a value', refusal };
}

export function section<O extends Options>(title: string, options: O, after?: string): Section<O> {
  return { title, options, after };
}
