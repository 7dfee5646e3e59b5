// The CLI's subcommands, in the order `--help` lists them. Each lives in its own file under commands/.

import type { CliCommand } from '../io';
import { analyzeCommand } from './analyze';
import { compareCommand } from './compare';
import { doctorCommand } from './doctor';
import { profileCommand } from './profile';

export const commands: readonly CliCommand[] = [analyzeCommand, profileCommand, compareCommand, doctorCommand];
