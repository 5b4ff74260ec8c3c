#!/usr/bin/env python3
"""A contest with a start and an end (no OpenCL, no judge): `contest serve --opens/--closes` and
`contest open/close/freeze/withdraw/export` against a real server and its database.

  window_test.py HELPER WORKBOOK SCRATCH

HELPER is contest_serve_test (the server with its judge off, and runs recorded without a device),
WORKBOOK the `workbook` command (the instructor's verbs, from another process than the server's).
Prints ok/FAIL lines; exits 1 on any failure.
"""
import csv
import datetime
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_test import Server, check, get, post  # noqa: E402
import server_test  # noqa: E402

KERNEL = "// contest: global = N, N\n__kernel void mmul() {}\n"


def utc(seconds_from_now):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds_from_now)
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def board(port):
    status, body, _ = get(port, "/api/board")
    return json.loads(body) if status == 200 else {}


def aliases(data):
    return sorted({r["alias"] for b in data.get("devices", []) for r in b.get("rows", [])})


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, **kw)


def window_by_time(helper, scratch):
    """Opens and closes by the clock; the page's countdown data; the refusals name the times."""
    opens, closes = utc(3), utc(7)
    server = Server(helper, scratch, "timed", "tok", "--interval", "0", "--opens", opens, "--closes", closes)
    check("the server starts with a window", server.port is not None, server.text()[-400:])
    if server.port is None:
        return
    port = server.port
    check("the start-up log states the window", f"entries from {opens} until {closes}" in server.text(),
          server.text()[-400:])
    data = board(port)
    c = data.get("contest") or {}
    check("before it opens, /api/board says so and counts down",
          c.get("state") == "not open yet" and 0 < c.get("opens_in", -1) <= 3 and c.get("closes") == closes, str(c))
    status, body = post(port, "tok", "early", KERNEL)
    check("an entry before the opening is refused (403) with the opening time",
          status == 403 and opens in body and "opens at" in body, f"{status} {body}")
    while utc(0) < opens:
        time.sleep(0.2)
    status, body = post(port, "tok", "ontime", KERNEL)
    check("once open, an entry is taken", status == 200 and '"queued"' in body, f"{status} {body}")
    c = board(port).get("contest") or {}
    check("while open, /api/board counts down to the close", c.get("state") == "open" and 0 < c.get("closes_in", -1) <= 7,
          str(c))
    while utc(0) < closes:
        time.sleep(0.2)
    status, body = post(port, "tok", "late", KERNEL)
    check("after the closing time, an entry is refused (403) with the closing time",
          status == 403 and closes in body and "closed at" in body, f"{status} {body}")
    check("after the closing time, /api/board says closed", (board(port).get("contest") or {}).get("state") == "closed")
    db = sqlite_rows(server.db, "SELECT alias FROM submissions ORDER BY id")
    check("only the entry inside the window is stored", db == [("ontime",)], str(db))
    check("SIGTERM stops the server", server.stop() == 0)


def sqlite_rows(db, sql):
    import sqlite3
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchall()


def started(helper, scratch, name):
    """A server without a window (one shared token, no rate limit), or None after saying why."""
    server = Server(helper, scratch, name, "tok", "--interval", "0")
    if server.port is None:
        check(f"the server {name} starts", False, server.text()[-400:])
        return None
    return server


def window_by_hand(helper, workbook, scratch):
    """`contest close` and `contest open` from another process reach the running server."""
    server = started(helper, scratch, "hand")
    if server is None:
        return
    port, db = server.port, server.db
    check("without a window, /api/board has no contest clock", board(port).get("contest", "absent") is None)
    status, _ = post(port, "tok", "ann", KERNEL)
    check("without a window, entries are taken", status == 200)
    closed = run([workbook, "contest", "--db", db, "close"])
    check("`contest close` closes it and says when", closed.returncode == 0 and "closed at" in closed.stdout,
          closed.stdout + closed.stderr)
    status, body = post(port, "tok", "ben", KERNEL)
    check("after `contest close`, the running server refuses entries (403)", status == 403 and "closed at" in body,
          f"{status} {body}")
    check("... and /api/board says closed", (board(port).get("contest") or {}).get("state") == "closed")
    reopened = run([workbook, "contest", "--db", db, "open"])
    status, _ = post(port, "tok", "ben", KERNEL)
    check("`contest open` takes entries again", reopened.returncode == 0 and status == 200,
          reopened.stdout + reopened.stderr + str(status))
    bad = run([workbook, "contest", "--db", db, "serve", "--port", "0", "--opens", "25:00", "--token", "x"])
    check("a time that is not one is refused before serving, with the forms",
          bad.returncode != 0 and "not a time of the calendar" in bad.stderr, bad.stderr)
    bad = run([workbook, "contest", "--db", db, "serve", "--port", "0", "--opens", "tomorrow", "--token", "x"])
    check("... and a word is refused with the forms it takes", bad.returncode != 0 and "+90m" in bad.stderr, bad.stderr)
    server.stop()


def freeze_withdraw_export(helper, workbook, scratch):
    """The frozen public board, a withdrawn entry, and the export of it all."""
    server = started(helper, scratch, "freeze")
    if server is None:
        return
    port, db = server.port, server.db

    def record(alias, gflops):
        r = run([helper, "record", db, alias, str(gflops)])
        return int(r.stdout.strip())

    record("ann", 100)
    record("ben", 90)
    frozen = run([workbook, "contest", "--db", db, "freeze"])
    check("`contest freeze` says when", frozen.returncode == 0 and "frozen at" in frozen.stdout, frozen.stdout + frozen.stderr)
    cat = record("cat", 200)
    record("ann", 300)
    data = board(port)
    check("frozen: the page's board keeps the runs up to the freeze (no cat, ann at 100)",
          aliases(data) == ["ann", "ben"] and
          [r["gflops"] for b in data["devices"] for r in b["rows"] if r["alias"] == "ann"] == [100.0], str(data)[:600])
    check("frozen: /api/board says since when", bool((data.get("contest") or {}).get("frozen")), str(data.get("contest")))
    full = run([workbook, "contest", "--db", db, "board"])
    public = run([workbook, "contest", "--db", db, "board", "--public"])
    check("frozen: the instructor's `contest board` shows every run (cat) and says the page is frozen",
          "cat" in full.stdout and "frozen" in full.stdout, full.stdout)
    check("frozen: `contest board --public` shows what the page shows", "cat" not in public.stdout and "ann" in public.stdout,
          public.stdout)
    status, _ = post(port, "tok", "dan", KERNEL)
    check("frozen: entries are still taken", status == 200)
    run([workbook, "contest", "--db", db, "close"])
    data = board(port)
    check("closed: the page shows every run again (ann first at 300, cat on it)",
          aliases(data) == ["ann", "ben", "cat"] and data["devices"][0]["rows"][0]["gflops"] == 300.0, str(data)[:600])

    reason = "=HYPERLINK(\"x\"), copied from another entry"
    w = run([workbook, "contest", "--db", db, "withdraw", str(cat), "--reason", reason])
    check("`contest withdraw ID --reason` succeeds", w.returncode == 0, w.stdout + w.stderr)
    check("a withdrawn entry is off the page's board", aliases(board(port)) == ["ann", "ben"], str(board(port))[:400])
    check("... and off the instructor's", "cat" not in run([workbook, "contest", "--db", db, "board"]).stdout)
    status = run([workbook, "contest", "--db", db, "status", "--history"]).stdout
    check("`contest status --history` shows it withdrawn with the reason", "withdrawn" in status and "copied" in status, status)
    missing = run([workbook, "contest", "--db", db, "withdraw", "999", "--reason", "x"])
    check("withdrawing a submission that does not exist is an error naming it",
          missing.returncode != 0 and "no submission 999" in missing.stderr, missing.stderr)

    out = os.path.join(scratch, "export")
    e = run([workbook, "contest", "--db", db, "export", out, "--with-sources"])
    check("`contest export DIR --with-sources` writes its files", e.returncode == 0 and "wrote" in e.stdout, e.stdout + e.stderr)
    try:
        with open(os.path.join(out, "boards.json")) as f:
            boards = json.load(f)["boards"]
        with open(os.path.join(out, "submissions.json")) as f:
            subs = {s["id"]: s for s in json.load(f)["submissions"]}
        with open(os.path.join(out, "runs.csv"), newline="") as f:
            runs = list(csv.DictReader(f))
        with open(os.path.join(out, "submissions.csv"), newline="") as f:
            subs_csv = {int(r["id"]): r for r in csv.DictReader(f)}
        with open(os.path.join(out, "window.json")) as f:
            window = json.load(f)
    except (OSError, ValueError, KeyError) as err:
        check("the export reads back", False, str(err))
        return
    check("export: the board has ann first (300) and no withdrawn entry",
          boards and boards[0]["rows"][0]["alias"] == "ann" and boards[0]["rows"][0]["gflops"] == 300.0 and
          all(r["alias"] != "cat" for b in boards for r in b["rows"]), str(boards)[:500])
    check("export: every run is kept, the withdrawn entry's too (4 runs)",
          len(runs) == 4 and any(r["alias"] == "cat" for r in runs), str(runs)[:500])
    history = subs.get(cat, {}).get("history", [])
    check("export: the withdrawn entry keeps its status, reason and the event",
          subs.get(cat, {}).get("status") == "withdrawn" and subs[cat]["reason"] == reason and
          any(h["state"] == "withdrawn" and h["detail"] == reason for h in history), str(subs.get(cat))[:500])
    check("export: a reason that reads as a spreadsheet formula stays text in the CSV",
          subs_csv.get(cat, {}).get("reason") == "'" + reason, str(subs_csv.get(cat)))
    dan = [s for s in subs.values() if s["alias"] == "dan"]
    with open(os.path.join(out, "sources", f"{dan[0]['id']}.cl") if dan else os.devnull) as f:
        check("export: --with-sources holds each entry's kernel as uploaded", bool(dan) and f.read() == KERNEL)
    check("export: window.json has the freeze and the close by hand",
          window.get("closed_by") == "hand" and window.get("frozen") != "", str(window))
    again = run([workbook, "contest", "--db", db, "export", out])
    check("export into a folder that is not empty is refused, nothing overwritten",
          again.returncode != 0 and "not an empty folder" in again.stderr and
          os.path.getsize(os.path.join(out, "boards.json")) > 0, again.stderr)
    server.stop()


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    helper, workbook, scratch = sys.argv[1:]
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    window_by_time(helper, scratch)
    window_by_hand(helper, workbook, scratch)
    freeze_withdraw_export(helper, workbook, scratch)
    if server_test.failures:
        print(f"{server_test.failures} check(s) FAILED; the servers' logs are in {scratch}")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
