#!/usr/bin/env python3
"""Where a save's verdict spends its time, per exercise: the graded test of the solution on the
default device (the values verdict), its speed case (rungs 15-20) or traffic case (08-10), then its race pass under Oclgrind with every check on (as
`workbook check` runs it), and the same pass with each of Oclgrind's checks alone and with none,
so the cost of each check is a column of its own. Wall and processor seconds of each run.

    bench/race_cost.py [--build build] [--seed 7] [--split] [EXERCISE ...]   (default: all with kernels)

Processor seconds are the figure to compare: they do not change with what else the machine is
doing, where wall time on a shared 2-core machine does. One run per cell; rerun for spread.
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def timed(argv, env, timeout):
    """(wall s, processor s of the children, exit code) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    try:
        rc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, rc


def timed_side_by_side(runs, env, timeout):
    """(wall s, processor s, exit code: the first non-zero) of several runs started together."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    procs = [subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for argv in runs]
    codes = []
    for p in procs:
        try:
            codes.append(p.wait(timeout=max(1, timeout - (time.monotonic() - start))))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            codes.append("timeout")
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, next((c for c in codes if c != 0), 0)


def values_runs(test, exclude):
    """The values cases as `workbook check` runs them (harness/src/local_check.cpp): each in a
    process of its own, side by side, where the test has more than one."""
    listed = subprocess.run([str(test), "--list-test-cases", exclude], capture_output=True, text=True).stdout
    names = listed.split("=" * 79)[1].strip().splitlines() if listed.count("=" * 79) >= 2 else []
    if len(names) < 2:
        return [[str(test), exclude]]
    return [[str(test), "--test-case=" + n.replace(",", "?")] for n in names]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(HERE / "build"))
    p.add_argument("--seed", default="7")
    p.add_argument("--split", action="store_true", help="also each Oclgrind check alone, and none")
    p.add_argument("--timeout", type=int, default=900)
    p.add_argument("exercises", nargs="*")
    a = p.parse_args()
    course = tomllib.loads((HERE / "course.toml").read_text())
    bin_dir = Path(a.build) / "bin"
    env = dict(os.environ, WORKBOOK_SEED=a.seed)
    rows = []
    for ex in course["exercise"]:
        name = f"{ex['id']}_{ex['name']}"
        if a.exercises and ex["id"] not in a.exercises and name not in a.exercises:
            continue
        if not ex.get("kernels") or ex.get("race_check", True) is False:
            continue
        test = bin_dir / f"test-{name}-solution"
        if not test.exists():
            print(f"{name}: no {test} (build first)", file=sys.stderr)
            continue
        row = {"exercise": name}
        # The values verdict: the graded test cases that check results, not the speed or traffic
        # check, after an edit of the kernel: the solution's kernels with a kernel of a fresh name
        # appended (WORKBOOK_KERNEL_DIR; a comment is not enough, PoCL keys its cache by the
        # compiled code), so PoCL builds them again as on a student's save (on 18-20, one build
        # per shape is most of the time), while what the save leaves alone stays cached. Its cases
        # side by side where there are several, as `workbook check` runs them.
        edited = Path(tempfile.mkdtemp(prefix="race-cost-"))
        edit = f"\n__kernel void edited_{time.time_ns()}(__global int* x) {{ x[0] = 1; }}\n"
        for k in ex["kernels"]:
            # A kernel from another folder ("../../solutions/02_vadd/vadd.cl") is not the student's
            # to edit: copied as it is; nor one the solution leaves as given (13's events.cl).
            theirs = k.startswith("../") or not (HERE / "solutions" / name / k).exists()
            source = (HERE / "exercises" / name / k).resolve() if theirs else HERE / "solutions" / name / k
            (edited / source.name).write_text(source.read_text() + ("" if theirs else edit))
        row["graded"] = timed_side_by_side(values_runs(test, "-tce=*: speed*,*: traffic*"),
                                           dict(env, WORKBOOK_KERNEL_DIR=str(edited)), a.timeout)
        shutil.rmtree(edited)
        # The speed case (the SGEMM track: timed rounds, and on a CPU the traffic count of the
        # student's kernel), or 08-10's traffic case; the references' figures kept from an earlier
        # run, as on a second save.
        if ex.get("speed_references") or ex.get("traffic_references"):
            row["speed"] = timed([str(test), "-tc=*: speed*,*: traffic*"], env, a.timeout)
        # The race pass as the checkers run it (harness/src/race_check.cpp).
        row["race"] = timed([str(bin_dir / "race_check"), "--expect", "clean", "--timeout", str(a.timeout), str(test)],
                            env, a.timeout + 60)
        if a.split:
            small = dict(env, WORKBOOK_SMALL="1", WORKBOOK_RACE_PASS="1", WORKBOOK_RUNNER_TIMEOUT=str(a.timeout))
            for label, flags in (("none", []), ("data-races", ["--data-races"]), ("uninitialized", ["--uninitialized"])):
                row[label] = timed(["oclgrind", *flags, str(test), "-tce=*speed*"], small, a.timeout)
        rows.append(row)
        cells = "  ".join(f"{k} {v[0]:.1f}/{v[1]:.1f} s{'' if v[2] == 0 else ' (' + str(v[2]) + ')'}"
                          for k, v in row.items() if k != "exercise")
        print(f"{name}: {cells}", flush=True)
    cols = [c for c in ("graded", "speed", "race", "none", "data-races", "uninitialized") if any(c in r for r in rows)]
    print("\n| exercise | " + " | ".join(f"{c} wall / cpu s" for c in cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for r in rows:
        print(f"| {r['exercise']} | " + " | ".join(f"{r[c][0]:.1f} / {r[c][1]:.1f}" if c in r else "" for c in cols) + " |")


if __name__ == "__main__":
    main()
