"""A separate program for the recording tests: inserts rows into dbo.RecordedRows through python-tds (pytds, an
independent TDS driver), the way a test suite's fixtures would.

  python3 insert_rows.py PORT ROWS [--batched] [--exit CODE]

Per row (default): one autocommit INSERT each, so every row is its own write transaction and commit.
--batched: the same INSERTs inside one explicit transaction (BEGIN TRANSACTION … COMMIT), one commit in all.
--exit CODE: exit with CODE after the inserts (a failing suite). The password comes from LENS_TEST_PASSWORD.
"""
import os
import sys

import pytds


def main():
    port = int(sys.argv[1])
    rows = int(sys.argv[2])
    batched = "--batched" in sys.argv
    code = int(sys.argv[sys.argv.index("--exit") + 1]) if "--exit" in sys.argv else 0
    conn = pytds.connect(
        server="127.0.0.1",
        port=port,
        user="sa",
        password=os.environ["LENS_TEST_PASSWORD"],
        database="lab",
        autocommit=True,
        login_timeout=10,
        timeout=60,
    )
    with conn:
        cursor = conn.cursor()
        if batched:
            cursor.execute("BEGIN TRANSACTION")
        for i in range(rows):
            cursor.execute("INSERT INTO dbo.RecordedRows (v) VALUES (%s)", (i,))
        if batched:
            cursor.execute("COMMIT TRANSACTION")
    print(f"inserted {rows} rows {'in one transaction' if batched else 'one commit each'}")
    sys.exit(code)


if __name__ == "__main__":
    main()
