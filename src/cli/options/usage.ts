// Usage text generated from the option declarations the parser reads: one line per option name, its placeholder,
// and its help aligned in one column, continuation lines under it.
import type { Section } from './spec';
import type { CommandLineSpec } from './parse';

/** Where the help column starts: two spaces, the name and placeholder padded to 30. */
export const HELP_COLUMN = 32;

/** `  NAME   help`, the help in HELP_COLUMN and its continuation lines ('\n' in `help`) under it. */
export function usageLines(name: string, help: string): string[] {
  const shown = `  ${name}`;
  const [first, ...more] = help.split('\n');
  const head = shown.length <= HELP_COLUMN - 2 ? shown.padEnd(HELP_COLUMN) : `${shown}  `;
  return [`${head}${first}`, ...more.map((l) => `${' '.repeat(HELP_COLUMN)}${l}`)];
}

/** "Title:" and a line per option name (refused options are not offered). */
export function sectionUsage(section: Section): string {
  const lines = [`${section.title}:`];
  for (const option of Object.values(section.options)) {
    if (option.refusal !== undefined) continue;
    if (option.heading !== undefined) lines.push(`  ${option.heading}`);
    for (const n of option.names) lines.push(...usageLines(n.placeholder === null ? n.flag : `${n.flag} ${n.placeholder}`, n.help));
  }
  if (section.after !== undefined) lines.push(section.after);
  return lines.join('\n');
}

export interface UsageText {
  /** "Usage: durability-lens compare …" and its continuation lines (a usage error repeats these). */
  readonly synopsis: string;
  /** Paragraphs between the synopsis and the options. */
  readonly about?: string;
  /** Paragraphs after the options (exit codes). */
  readonly epilog?: string;
}

/** The whole `--help` text of a command: synopsis, what it does, every option section, exit codes. */
export function commandUsage(text: UsageText, spec: CommandLineSpec): string {
  const parts = [text.synopsis, text.about, ...spec.sections.map(sectionUsage), text.epilog].filter((p): p is string => p !== undefined && p !== '');
  return `${parts.join('\n\n')}\n`;
}

/** Every option flag a command accepts, in usage order (refused ones left out). */
export function optionFlags(spec: CommandLineSpec): string[] {
  return spec.sections.flatMap((s) => Object.values(s.options).filter((o) => o.refusal === undefined).flatMap((o) => o.names.map((n) => n.flag)));
}
