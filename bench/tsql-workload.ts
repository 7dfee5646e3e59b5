// Generates realistic T-SQL scripts of a given size for the analysis benchmark (deterministic: seeded PRNG).

/** Small deterministic PRNG (mulberry32) so every run measures the same text. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Block = (n: number, r: () => number) => string;

// A mix of what durability scripts contain: setup, loops, transactions, procedures, MERGE, comments, strings.
const BLOCKS: Block[] = [
  (n) => `-- setup ${n}: recreate the table\nIF OBJECT_ID(N'dbo.T${n}', N'U') IS NOT NULL\n    DROP TABLE dbo.T${n};\n` +
    `CREATE TABLE dbo.T${n} (id int IDENTITY(1, 1) PRIMARY KEY, col1 int NOT NULL DEFAULT (100), col2 varchar(100) NOT NULL DEFAULT ('abcd'));\nGO\n`,
  (n, r) => `DECLARE @i int = 0;\nWHILE @i < ${1000 + Math.floor(r() * 9000)}\nBEGIN\n    INSERT INTO dbo.T${n} (col1, col2) VALUES (@i, N'row ''${n}''');\n` +
    `    SET @i += 1;\nEND\nGO\n`,
  (n) => `BEGIN TRY\n    BEGIN TRANSACTION load_${n};\n    UPDATE dbo.T${n} SET col1 = col1 + 1 WHERE id % 7 = 0;\n` +
    `    DELETE FROM dbo.T${n} WHERE col2 = 'stale';\n    COMMIT TRANSACTION load_${n} WITH (DELAYED_DURABILITY = ON);\nEND TRY\n` +
    `BEGIN CATCH\n    IF @@TRANCOUNT > 0 ROLLBACK;\n    THROW;\nEND CATCH\nGO\n`,
  (n, r) => `/* procedure ${n}\n   /* nested note */ loads rows in chunks */\nCREATE OR ALTER PROCEDURE [dbo].[usp_load_${n}] @rows AS int = ${Math.floor(r() * 500)}, @label nvarchar(40) = N'x'\nAS\n` +
    `BEGIN\n    SET NOCOUNT ON;\n    DECLARE c CURSOR LOCAL FAST_FORWARD FOR SELECT id FROM dbo.T${n} WHERE col1 > @rows;\n    DECLARE @id int;\n` +
    `    OPEN c;\n    FETCH NEXT FROM c INTO @id;\n    WHILE @@FETCH_STATUS = 0\n    BEGIN\n        UPDATE dbo.T${n} SET col2 = CASE WHEN col1 > 10 THEN 'big' ELSE 'small' END WHERE id = @id;\n` +
    `        FETCH NEXT FROM c INTO @id;\n    END\n    CLOSE c;\n    DEALLOCATE c;\nEND\nGO\n`,
  (n) => `WITH src AS (SELECT id, col1 FROM dbo.T${n} WHERE col1 BETWEEN 10 AND 20)\nMERGE dbo.T${n + 1} AS t\nUSING src AS s ON t.id = s.id\n` +
    `WHEN MATCHED THEN UPDATE SET col1 = s.col1\nWHEN NOT MATCHED THEN INSERT (col1) VALUES (s.col1);\n` +
    `SELECT a.id, b.col2 INTO #copy_${n} FROM dbo.T${n} AS a INNER JOIN dbo.T${n + 1} AS b ON a.id = b.id;\nGO\n`,
  (n, r) => `ALTER DATABASE CURRENT SET DELAYED_DURABILITY = ${r() < 0.5 ? 'ALLOWED' : 'DISABLED'} WITH NO_WAIT;\nEXEC sys.sp_flush_log;\nCHECKPOINT;\n` +
    `PRINT CONCAT('INS: ', ${n}, ' - CHKPT: ', DATEDIFF(millisecond, SYSDATETIME(), SYSDATETIME()));\nINSERT dbo.T${n} DEFAULT VALUES\nGO ${2 + Math.floor(r() * 60)}\n`,
];

/** A script of at least `bytes` characters (UTF-16 code units; the text is ASCII so also bytes). */
export function generateScript(bytes: number, seed = 42): string {
  const r = prng(seed);
  const parts: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const part = BLOCKS[Math.floor(r() * BLOCKS.length)]!(n, r);
    parts.push(part);
    size += part.length;
  }
  return parts.join('');
}

/** A script of exactly `lines` lines (the last one may be cut short). */
export function generateLines(lines: number, seed = 7): string {
  const all = generateScript(lines * 60, seed).split('\n');
  while (all.length < lines) all.push(...generateScript(lines * 60, seed + all.length).split('\n'));
  return all.slice(0, lines).join('\n');
}
