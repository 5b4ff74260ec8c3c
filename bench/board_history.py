"""What a day of remote-check history costs the class server's answers: the board's latency
(`GET /api/board`, p50 and p95) and a poll's (`GET /api/check/ID`) while 12 students poll their
queued checks twice a second (as `workbook check --remote` does), with 0 and with 8,000 rows of
history (40 students x 200 checks, each result 2 kB), with the queue's indexes and with them
dropped (the server before them). One server, the modes in turn. Prints a table.

  python3 bench/board_history.py WORKBOOK OUT_DIR [REQUESTS]

WORKBOOK is the build's command (`build/bin/workbook`). The queued checks are kept from being
graded by holding the device's lock (as a contest judging would).
"""
import fcntl
import os
import sqlite3
import statistics
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cli"))
from lab_test import Server, free_port  # noqa: E402


def timed_get(port, path, token=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    start = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            r.read()
    except urllib.error.HTTPError as e:
        e.read()
    return time.monotonic() - start


def percentile(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def main():
    workbook, out = sys.argv[1:3]
    requests = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        if f.startswith("class.db") or f in ("roster.csv", "roster-tokens.csv", "server.log"):
            os.remove(os.path.join(out, f))
    students = [f"s{k}" for k in range(40)]
    roster = os.path.join(out, "roster.csv")
    with open(roster, "w") as f:
        f.write("".join(f"{s},Student {s}\n" for s in students))
    port = free_port()
    server = Server(workbook, out, port, roster)
    server.args = server.args[:server.args.index("--lab")] + ["--port", str(port), "--no-sandbox", "--no-race-check",
                                                              "--remote-checks", "02"]
    if not server.start():
        sys.exit("the server did not start: " + open(server.log).read())
    device = open(os.path.join(out, "class.db.judging.lock"), "a")
    fcntl.flock(device, fcntl.LOCK_SH)  # no check is graded: they stay queued
    tokens = server.tokens()
    db = sqlite3.connect(os.path.join(out, "class.db"), timeout=30)
    queued = []
    for s in students[:12]:
        cur = db.execute("INSERT INTO remote_checks (student_id, exercise, device) VALUES (?, '02', '')", (s,))
        queued.append((s, cur.lastrowid))
    db.commit()

    stop = threading.Event()
    poll_times = []

    def poller(student, check):
        while not stop.is_set():
            poll_times.append(timed_get(port, f"/api/check/{check}", tokens[student]))
            time.sleep(0.5)

    rows = []

    def measure(label, history):
        poll_times.clear()
        board = []
        for _ in range(requests):  # spread over several of the pollers' rounds
            board.append(timed_get(port, "/api/board"))
            time.sleep(0.05)
        polls = list(poll_times)
        rows.append((label, history, 12, statistics.median(board), percentile(board, 95),
                     statistics.median(polls) if polls else 0, percentile(polls, 95) if polls else 0))

    threads = [threading.Thread(target=poller, args=q, daemon=True) for q in queued]
    for t in threads:
        t.start()
    try:
        measure("indexes", 0)
        result = "x" * 2000
        db.executemany("INSERT INTO remote_checks (student_id, exercise, state, result, submitted_at, started_at, "
                       "finished_at, device) VALUES (?, '17', 'done', ?, strftime('%Y-%m-%dT%H:%M:%S','now',?), "
                       "strftime('%Y-%m-%dT%H:%M:%S','now',?), strftime('%Y-%m-%dT%H:%M:%S','now',?), '')",
                       [(students[k % 40], result, f"-{480 - k * 480 // 8000} minutes", f"-{480 - k * 480 // 8000} minutes",
                         f"-{480 - k * 480 // 8000} minutes") for k in range(8000)])
        db.commit()
        measure("indexes", 8000)
        db.execute("DROP INDEX remote_checks_waiting")
        db.execute("DROP INDEX remote_checks_recent")
        db.commit()
        measure("no indexes (before)", 8000)
    finally:
        stop.set()
        for t in threads:
            t.join(5)
        server.stop()
    print(f"{'queue':<22} {'history rows':>12} {'pollers':>7} {'board p50':>10} {'board p95':>10} {'poll p50':>9} {'poll p95':>9}")
    for label, history, pollers, b50, b95, p50, p95 in rows:
        print(f"{label:<22} {history:>12} {pollers:>7} {b50 * 1000:>8.1f}ms {b95 * 1000:>8.1f}ms {p50 * 1000:>7.1f}ms "
              f"{p95 * 1000:>7.1f}ms")


if __name__ == "__main__":
    main()
