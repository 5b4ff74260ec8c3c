"""What a Slurm job per remote check costs against the server's own worker: `workbook check 02
--remote` of 02's solution on a zoo's local device ("here": the server's worker thread grades it)
and on the same machine's PoCL reached through a single-node Slurm ("cluster": one job per check,
`workbook contest check-job`), taking turns round by round so that the machine's noise falls on
both alike. Prints a table: the round trip the student waits (median, fastest), the grade itself
(the grader's seconds, as the server records them) and the rest (queue, submission, job start,
transfer), and the difference per check.

  python3 bench/remote_devices.py WORKBOOK SCRATCH_WORKBOOK OUT_DIR [ROUNDS]

As bench/lab_latency.py (WORKBOOK_SCRATCH, WORKBOOK_SOURCE); starts its own Slurm with
tests/slurm/start_slurm.sh (as root, Debian's slurmctld, slurmd and munge).
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cli"))
from lab_test import a_class, http  # noqa: E402


def main():
    workbook, wb, out = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    source = os.environ["WORKBOOK_SOURCE"]
    server, student, port = a_class(workbook, wb, out, "ana,Ana\n")
    start_slurm = os.path.join(source, "tests", "slurm", "start_slurm.sh")
    slurm_dir = os.path.join(out, "slurm")
    started = subprocess.run(["bash", start_slurm, "start", slurm_dir], capture_output=True, text=True)
    if started.returncode != 0:
        sys.exit("Slurm did not start: " + started.stderr)
    os.environ["SLURM_CONF"] = re.search(r"SLURM_CONF=(\S+)", started.stdout).group(1)
    zoo = os.path.join(out, "zoo.toml")
    with open(zoo, "w") as f:
        f.write('[[device]]\nname = "here"\nreach = "local"\n\n'
                '[[device]]\nname = "cluster"\nreach = "slurm"\npartition = "debug"\n')
    server.args = server.args[:server.args.index("--lab")] + ["--port", str(port), "--devices", zoo,
                                                              "--remote-checks", "02", "--remote-interval", "0"]
    times = {"here": [], "cluster": []}
    grades = {"here": [], "cluster": []}
    try:
        if not server.start():
            sys.exit("the server did not start: " + open(server.log).read())
        token = server.tokens()["ana"]
        student.fresh()
        student.solve("02_vadd")
        student.run("join", f"http://127.0.0.1:{port}", "--token", token)
        for r in range(rounds + 1):
            for device in times:
                start = time.monotonic()
                code, text, _ = student.run("check", "02", "--remote", "--on", device)
                seconds = time.monotonic() - start
                if code != 0:
                    sys.exit(f"the check on {device} did not pass:\n{text}")
                if r == 0:
                    continue  # the first round warms the caches (the node's first job starts cold)
                times[device].append(seconds)
                check_id = re.search(r"remote check (\d+) of 02", text).group(1)
                result = http(port, f"/api/check/{check_id}", token)[1]["result"]
                grades[device].append(result["seconds"])
    finally:
        server.stop()
        student.run("leave")
        student.fresh()
        subprocess.run(["bash", start_slurm, "stop", slurm_dir], capture_output=True)
    print(f"02's solution checked remotely, {rounds} rounds each (after one warm-up), PoCL on this machine\n")
    print(f"{'device':<32} {'round trip med':>14} {'fastest':>8} {'grade med':>10} {'the rest med':>13}")
    for device, label in (("here", "here (the server's worker)"), ("cluster", "cluster (a Slurm job per check)")):
        rest = [t - g for t, g in zip(times[device], grades[device])]
        print(f"{label:<32} {statistics.median(times[device]):>13.2f}s {min(times[device]):>7.2f}s "
              f"{statistics.median(grades[device]):>9.2f}s {statistics.median(rest):>12.2f}s")
    extra = statistics.median(times["cluster"]) - statistics.median(times["here"])
    print(f"\na Slurm job per check costs {extra:+.2f} s per check (median round trip, cluster - here)")
    print(json.dumps({"here": times["here"], "cluster": times["cluster"]}))


if __name__ == "__main__":
    main()
