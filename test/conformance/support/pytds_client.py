"""python-tds (pytds, from PyPI) as an independent TDS client of the stand-in's conformance tests.

Reads one JSON request on stdin: {"port", "user", "password", "database", "batches": [sql, ...]} and prints one JSON
report: the login outcome, then per batch the result sets seen, every INFO/ERROR message the driver collected and the
exception the driver raised (if any). The test (python-tds.test.ts) asserts on that report; nothing here decides.
"""
import datetime
import decimal
import json
import sys

import pytds


def plain(value):
    """A cell as JSON: numbers stay numbers, the rest becomes text the test can compare."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    return str(value)


def error_of(exc):
    return {
        "type": type(exc).__name__,
        "number": getattr(exc, "msg_no", None),
        "severity": getattr(exc, "severity", None),
        "state": getattr(exc, "state", None),
        "line": getattr(exc, "line", None),
        "text": getattr(exc, "text", str(exc)),
    }


def messages_of(cursor):
    out = []
    for _kind, msg in cursor.messages or []:
        out.append({"number": msg.msg_no, "severity": msg.severity, "text": msg.text})
    return out


def run_batch(conn, sql):
    report = {"resultSets": [], "messages": [], "error": None}
    cursor = conn.cursor()
    try:
        cursor.execute(sql)
        while True:
            if cursor.description:
                columns = [d[0] for d in cursor.description]
                rows = [[plain(v) for v in row] for row in cursor.fetchall()]
                report["resultSets"].append({"columns": columns, "rows": rows})
            if not cursor.nextset():
                break
    except pytds.Error as exc:  # what the driver raises on an ERROR + DONE_ERROR
        report["error"] = error_of(exc)
    report["messages"] = messages_of(cursor)
    return report


def main():
    request = json.load(sys.stdin)
    out = {"login": None, "batches": []}
    try:
        conn = pytds.connect(
            server="127.0.0.1",
            port=request["port"],
            user=request["user"],
            password=request["password"],
            database=request.get("database"),
            autocommit=True,
            login_timeout=10,
            timeout=20,
        )
    except pytds.Error as exc:
        out["login"] = {"ok": False, "error": error_of(exc)}
        print(json.dumps(out))
        return
    out["login"] = {"ok": True}
    with conn:
        for sql in request.get("batches", []):
            out["batches"].append(run_batch(conn, sql))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
