"""What grading a device's waiting remote checks of one exercise together saves: STUDENTS checks of
a rung's solution (EXERCISE, default 15_sgemm_wpt), queued at once (a contest judging holds the device while they arrive, as in a
lab where a class checks the same rung), then graded with `--remote-batch 1` (one `workbook grade`
each: a reference run each) and with `--remote-batch STUDENTS` (one grade for all). Prints a table:
the time until the last result, and the mean wait per student.

  python3 bench/remote_batch.py WORKBOOK OUT_DIR [STUDENTS] [EXERCISE] [ROUNDS]

Each round runs both settings, their order turned round every other round (a fresh machine's first
grade pays its compile caches); the table gives each setting's median over the rounds.

WORKBOOK is the main build's command (the server; the checks are posted as `workbook check
--remote` posts them); env WORKBOOK_SOURCE names the source tree. The server grades with its
sandbox and race pass where bubblewrap and Oclgrind are installed.
"""
import fcntl
import os
import statistics
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cli"))
from lab_test import Server, free_port, http  # noqa: E402
from remote_test import post_check  # noqa: E402


def run(workbook, out, students, batch, exercise):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    roster = os.path.join(out, "roster.csv")
    with open(roster, "w") as f:
        f.write("".join(f"s{i}\n" for i in range(students)))
    port = free_port()
    server = Server(workbook, out, port, roster)
    server.args = server.args[:server.args.index("--lab")] + ["--port", str(port), "--remote-checks", exercise[:2],
                                                              "--remote-interval", "0", "--remote-batch", str(batch)]
    if shutil.which("bwrap") is None:
        server.args.append("--no-sandbox")
    if shutil.which("oclgrind") is None:
        server.args.append("--no-race-check")
    if not server.start():
        sys.exit("the server did not start: " + open(server.log).read())
    try:
        tokens = server.tokens()
        kernel = open(os.path.join(os.environ["WORKBOOK_SOURCE"], "solutions", exercise, "mmul.cl"), "rb").read()
        held = open(os.path.join(out, "class.db.judging.lock"), "a")
        fcntl.flock(held, fcntl.LOCK_SH)
        ids = {}
        for who, token in tokens.items():
            status, body = post_check(port, token, [("exercise", exercise[:2].encode()), ("mmul.cl", kernel)])
            if status != 200:
                sys.exit(f"{who}'s check was refused: {status} {body}")
            ids[who] = body["id"]
        start = time.monotonic()
        fcntl.flock(held, fcntl.LOCK_UN)
        held.close()
        waits, devices = {}, set()
        while len(waits) < len(ids) and time.monotonic() - start < 1800:
            for who, check_id in ids.items():
                if who in waits:
                    continue
                body = http(port, f"/api/check/{check_id}", tokens[who])[1]
                if body.get("state") in ("done", "failed"):
                    if not (body.get("result") or {}).get("passed"):
                        sys.exit(f"{who}'s check did not pass: {str(body)[:2000]}")
                    waits[who] = time.monotonic() - start
                    devices.add(body["result"].get("device", "?"))
            time.sleep(0.5)
        return max(waits.values()), sum(waits.values()) / len(waits), ", ".join(sorted(devices))
    finally:
        server.stop()


def main():
    workbook, out = sys.argv[1:3]
    students = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    exercise = sys.argv[4] if len(sys.argv) > 4 else "15_sgemm_wpt"
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    runs = {1: [], students: []}
    device = ""
    for r in range(rounds):
        for b in ((1, students) if r % 2 == 0 else (students, 1)):
            last, mean, device = run(workbook, os.path.join(out, f"batch-{b}"), students, b, exercise)
            runs[b].append((last, mean))
            print(f"round {r + 1}, --remote-batch {b}: last result {last:.1f} s, mean wait {mean:.1f} s", flush=True)
    print(f"\n{students} checks of {exercise}'s solution queued at once, then graded on: {device}; "
          f"median of {rounds} round(s)\n")
    print(f"{'--remote-batch':<16} {'last result':>12} {'mean wait':>10}")
    med = {b: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)) for b, v in runs.items()}
    for b, (last, mean) in med.items():
        print(f"{b:<16} {last:>11.1f}s {mean:>9.1f}s")
    print(f"\ngraded together: the last result {med[students][0] / med[1][0]:.2f}x, the mean wait "
          f"{med[students][1] / med[1][1]:.2f}x those of one grade each")


if __name__ == "__main__":
    main()
