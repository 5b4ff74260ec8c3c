#!/usr/bin/env python3
"""An SGEMM rung's speed check with the previous rung's solution in the student's place
(WORKBOOK_SPEED_STUDENT=previous), the traffic counted and shown whatever the speed says
(WORKBOOK_TRAFFIC=show). Passes when the check fails that kernel, too slow or on traffic (never
waived: every rung of the track grades on one or the other here), and the traffic table shows the
two solutions' graded figures exactly as tests/traffic/figures.txt has them (every line of the rung:
rung 18 is graded on two figures).

    speed_previous.py TEST_BINARY RUNG FIGURES_FILE TIMEOUT_SECONDS
"""
import os
import re
import subprocess
import sys

# figures.txt's names for the traffic table's column headers.
HEADERS = {"global": "global B", "local": "local B", "loads": "loads", "exposed": "exposed B", "waits": "waits"}


def main():
    binary, rung, figures_file, timeout = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    expected = []  # (figure, previous, solution), one per line of the rung
    for line in open(figures_file):
        words = line.split()
        if words and not words[0].startswith("#") and words[0] == rung:
            expected.append(tuple(words[1:4]))
    if not expected:
        print(f"FAIL: {figures_file} has no line for {rung}")
        return 1
    # The figures file holds N = 128's figures; the check draws N from the seed otherwise.
    env = dict(os.environ, WORKBOOK_SPEED_STUDENT="previous", WORKBOOK_TRAFFIC="show", WORKBOOK_TRAFFIC_N="128")
    try:
        run = subprocess.run([binary, "--test-case=*speed*"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        print(e.stdout or "")
        print(f"FAIL: the speed check ran past {timeout:.0f} s")
        return 1
    out = run.stdout
    print(out)
    problems = []
    if run.returncode == 0:
        problems.append("the previous rung's solution passed this rung's speed check")
    if "too slow for this rung" not in out and "does the previous rung's traffic" not in out:
        problems.append("no failure as too slow or on traffic (waived, or failed for another reason)")
    rows = {}  # the traffic table's rows (the speed table above it names the same kernels)
    columns = []  # its column headers, in order
    in_table = False
    for line in out.splitlines():
        stripped = line.strip()
        if stripped.startswith("memory traffic per multiply-add"):
            in_table = True
            continue
        if not in_table:
            continue
        if not columns:
            columns = re.findall("|".join(HEADERS.values()), stripped)
            continue
        for who, key in (("this rung's solution (", "solution"), ("the previous rung's (", "previous")):
            if stripped.startswith(who):
                rows[key] = stripped[stripped.index(")") + 1:].split()
                in_table = key != "previous"  # the table's last row
    for metric, previous, solution in expected:
        header = HEADERS.get(metric)
        column = columns.index(header) if header in columns else None
        for key, want in (("previous", previous), ("solution", solution)):
            cells = rows.get(key)
            if cells is None or column is None or len(cells) <= column:
                problems.append(f"no {metric} figure for the {key} rung's solution in the traffic table")
            elif cells[column] != want:
                problems.append(f"the {key} rung's solution: {metric} {cells[column]} per multiply-add, figures.txt says {want}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        recorded = "; ".join(f"{m} per multiply-add {p} and {s}" for m, p, s in expected)
        print(f"ok: {rung}: the previous rung's solution fails; {recorded} as recorded")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
