"""A separate program for the recording tests: inserts rows into the suite's table through python-tds (pytds, an
independent TDS driver), the way a test suite's fixtures would.

  python3 insert_rows.py PORT ROWS [--batched] [--exit CODE]

Per row (default): one autocommit INSERT each, so every row is its own write transaction and commit.
--batched: the same INSERTs inside one explicit transaction (BEGIN TRANSACTION … COMMIT), one commit in all.
--exit CODE: exit with CODE after the inserts (a failing suite).
The rest of its configuration comes from its environment, as a real program's would: LENS_TEST_HOST (default
127.0.0.1), LENS_TEST_USER (sa), LENS_TEST_DATABASE (lab), LENS_TEST_TABLE (dbo.RecordedRows), LENS_TEST_PASSWORD.
"""
import os
import re
import sys

import pytds


def main():
    port = int(sys.argv[1])
    rows = int(sys.argv[2])
    batched = "--batched" in sys.argv
    code = int(sys.argv[sys.argv.index("--exit") + 1]) if "--exit" in sys.argv else 0
    table = os.environ.get("LENS_TEST_TABLE", "dbo.RecordedRows")
    if not re.fullmatch(r"dbo\.[A-Za-z_][A-Za-z0-9_]*", table):
        sys.exit(f"not a plain table name: {table}")
    conn = pytds.connect(
        server=os.environ.get("LENS_TEST_HOST", "127.0.0.1"),
        port=port,
        user=os.environ.get("LENS_TEST_USER", "sa"),
        password=os.environ["LENS_TEST_PASSWORD"],
        database=os.environ.get("LENS_TEST_DATABASE", "lab"),
        autocommit=True,
        login_timeout=10,
        timeout=60,
    )
    with conn:
        cursor = conn.cursor()
        if batched:
            cursor.execute("BEGIN TRANSACTION")
        for i in range(rows):
            cursor.execute(f"INSERT INTO {table} (v) VALUES (%s)", (i,))
        if batched:
            cursor.execute("COMMIT TRANSACTION")
    print(f"inserted {rows} rows {'in one transaction' if batched else 'one commit each'}")
    sys.exit(code)


if __name__ == "__main__":
    main()
