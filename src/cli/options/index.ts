// The CLI's option machinery, as the commands use it: declare options as data (spec.ts), declare a command with its
// sections (command.ts); parse.ts and usage.ts read the same declarations.
export { accumulated, choice, converted, describeRange, flag, invalid, Invalid, negatedFlag, numberOption, oneOfFlags, orList, parseNumber, refused, section, text, textWithDefault, TIMER_LIMIT_MS, TIMER_LIMIT_SECONDS } from './spec';
export type { NumberRule, OptionName, OptionSpec, Options, Section, ValuesOf } from './spec';
export { parseCommandLine, type CommandLineSpec, type Operands, type ParsedCommandLine } from './parse';
export { commandUsage, optionFlags, sectionUsage, usageLines, HELP_COLUMN, type UsageText } from './usage';
export { declareCommand, type CommandDeclaration, type DeclaredCommand, type UsageFailure } from './command';
