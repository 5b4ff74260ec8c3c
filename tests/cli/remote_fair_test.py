"""One device, a room: a student whose remote checks hang does not starve the contest's judging or
a classmate's check.

  remote_fair_test.py WORKBOOK SCRATCH_WORKBOOK OUT_DIR

(env WORKBOOK_SCRATCH, WORKBOOK_SOURCE, as tests/cli/lab_test.py.) `contest serve` with remote
checks of 02 (each test run limited to 20 s: the honest check must pass within it on a loaded
machine, 4 s did not under CI with builds beside it) and its judge. "hog" keeps two checks waiting all the
time, each of host code that never returns (graded to its time limit). While the hog's checks run:
- a contest entry is uploaded: it must be judged after at most two of the hog's gradings end (the
  one in progress when it came, and one that began while the judge had not yet looked: the judge
  looks every second). Before the device's one line, the checks' loop retook the device within
  milliseconds and an entry waited minutes;
- an honest student's check of 02 is sent: it must be graded after at most two of the hog's
  gradings end (the one in progress, and one the judging may sit between), since the hog used the
  device for far more seconds in the last 15 minutes.
The order is read from the server's log (one line per grading, per judging). Prints ok/FAIL lines;
exit 1 on any failure.
"""
import json
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_test import a_class, check, http  # noqa: E402
from remote_test import post_check  # noqa: E402
import lab_test  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "contest"))
from server_test import post  # noqa: E402


def log_lines(server):
    return open(server.log).read().splitlines()


def hog_gradings_between(lines, start_marker, end_pattern):
    """How many of the hog's gradings ended after the line holding start_marker and before the first
    line matching end_pattern (None when either is missing)."""
    start = next((i for i, l in enumerate(lines) if start_marker in l), None)
    if start is None:
        return None
    end = next((i for i in range(start, len(lines)) if re.search(end_pattern, lines[i])), None)
    if end is None:
        return None
    graded = (re.search(r"remote check (\d+) \(02\): graded", l) for l in lines[start:end])
    return sum(1 for m in graded if m and int(m.group(1)) in hog_ids)


hog_ids = set()


def main():
    workbook, wb, out = sys.argv[1:4]
    source = os.environ["WORKBOOK_SOURCE"]
    server, student, port = a_class(workbook, wb, out, "hog,Hog Hogg\nhonest,Ona Est\n")
    server.args = server.args[:server.args.index("--lab")] + ["--port", str(port), "--no-sandbox", "--no-race-check"]
    server.args += ["--remote-checks", "02", "--remote-interval", "1", "--remote-timeout", "20"]
    stop = threading.Event()
    try:
        if not check("the server starts with remote checks and its judge", server.start(), open(server.log).read()):
            return 1
        tokens = server.tokens()
        kernel = open(os.path.join(source, "solutions", "02_vadd", "vadd.cl"), "rb").read()
        host = open(os.path.join(source, "solutions", "02_vadd", "vadd_host.cpp"), "rb").read()
        # It hangs asleep: the device is held all the same (the queue counts the seconds a check holds
        # it), and a spinning loop only took a core from the tests running beside this one.
        hanging = host + b"\n#include <unistd.h>\nnamespace {\nconst int hang = [] { for (;;) ::sleep(1); return 0; }();\n}\n"

        def hog():
            while not stop.is_set():
                status, body = post_check(port, tokens["hog"], [("exercise", b"02"), ("vadd.cl", kernel),
                                                                ("vadd_host.cpp", hanging)])
                if status == 200:
                    hog_ids.add(body["id"])
                time.sleep(0.5)

        threading.Thread(target=hog, daemon=True).start()
        # Let the hog's first gradings get under way.
        deadline = time.monotonic() + 400
        while time.monotonic() < deadline and sum("(02): graded" in l for l in log_lines(server)) < 1:
            time.sleep(0.5)
        check("the hog's checks are being graded, one after another", len(hog_ids) >= 2, open(server.log).read()[-1500:])

        grace = open(os.path.join(source, "contest", "examples", "grace.cl")).read()
        marker = f"ENTRY-UPLOADED-{time.monotonic()}"
        with open(server.log, "a") as f:
            f.write(marker + "\n")
        status, text = post(port, tokens["honest"], None, grace)
        entry = json.loads(text).get("id") if status == 200 else None
        check("the honest student's contest entry is queued", entry is not None, text)
        deadline = time.monotonic() + 400
        while time.monotonic() < deadline and not any(f"judged {entry} " in l for l in log_lines(server)):
            time.sleep(0.5)
        n = hog_gradings_between(log_lines(server), marker, rf"judged {entry} ")
        check(f"the entry is judged after {n} of the hog's gradings (at most 2)", n is not None and n <= 2,
              "\n".join(log_lines(server)[-40:]))

        time.sleep(1.1)
        marker = f"CHECK-SENT-{time.monotonic()}"
        with open(server.log, "a") as f:
            f.write(marker + "\n")
        status, body = post_check(port, tokens["honest"], [("exercise", b"02"), ("vadd.cl", kernel), ("vadd_host.cpp", host)])
        honest = body.get("id") if status == 200 else None
        check("the honest student's check is queued", honest is not None, str(body))
        deadline = time.monotonic() + 400
        state = None
        while time.monotonic() < deadline:
            body = http(port, f"/api/check/{honest}", tokens["honest"])[1]
            state = body.get("state") if isinstance(body, dict) else None
            if state in ("done", "failed"):
                break
            time.sleep(0.5)
        check("the honest check passes", state == "done" and body["result"]["passed"], json.dumps(body)[:1500])
        n = hog_gradings_between(log_lines(server), marker, rf"remote check {honest} \(02\): graded")
        check(f"it is graded after {n} of the hog's gradings (at most 2)", n is not None and n <= 2,
              "\n".join(log_lines(server)[-40:]))

        # The hog's next check is being graded now (each takes its 20 s limit at least): a stop
        # does not wait for it, and leaves it for the next start.
        time.sleep(1.0)
        stop.set()
        server.proc.terminate()
        try:
            server.proc.wait(15)
            stopped = True
        except subprocess.TimeoutExpired:
            stopped = False
        check("the server stops without waiting for the grading in progress",
              stopped and any("stopped with the server, queued again" in l for l in log_lines(server)),
              "\n".join(log_lines(server)[-20:]))
    finally:
        stop.set()
        server.stop()
    return 1 if lab_test.failures else 0


if __name__ == "__main__":
    sys.exit(main())
