// Public surface of the T-SQL analysis core (no vscode imports anywhere under src/tsql).

export { analyze } from './analyze';
export { lex, TokenKind, UNTERMINATED } from './lexer';
export { firstStartAtOrAfter, identifierText, tokenize } from './tokenText';
export type { Token, TokenStream } from './lexer';
export { splitBatches, documentLineOfBatchLine } from './batches';
export { scanStructure } from './structure';
export { LineIndex } from './lines';
export { Kw, keywordOf, keywordName } from './keywords';
export type * from './types';
export { procedureSignature, PROMPTABLE_TYPES } from './procedureParameters';
export { changesText, classifyBatch, type BatchClass, type ChangingStatement, type ClassifyOptions } from './classify';
