#!/usr/bin/env python3
"""Exercise 20's tuner and tuned lines, end to end on the suite's device (PoCL).

  tuning_e2e.py BIN_DIR SOLUTION_KERNEL WORK_DIR

1. The tuner on the solution: every candidate checked and timed, the fastest written as a line
   for this device.
2. On a planted bug that is wrong without prefetching: those candidates FAILED, one that
   prefetches chosen (a choice that fails its check is never saved).
3. The reference tuned (--reference): stored in the reference file, and the check says so.
4. A student line naming the slowest candidate for this device, against the tuned reference:
   "too slow for this rung". The line at the fastest: passes.
5. A line for another device, and a line naming a shape that is no candidate: ignored, each with
   its reason, and the kernel graded at the reference's shape.
"""
import os
import re
import shutil
import subprocess
import sys

bin_dir, solution_kernel, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []
ROW = re.compile(r"^\[\s*\d+/\d+\s*\]\s+(TSM=\S+(?: \w+=\d+)*)\s+(\S+)\s+(\S+(?: ms| s| us)?)\s+(.*)$")


def run(binary, extra_env, *args, timeout=240):
    env = dict(os.environ)
    env.update({"WORKBOOK_REFERENCE_TUNING": os.path.join(work, "reference.toml"), "WORKBOOK_SEED": "2020"})
    for name in ("WORKBOOK_TUNE", "WORKBOOK_TUNE_REFERENCE", "WORKBOOK_KERNEL_DIR"):
        env.pop(name, None)
    env.update(extra_env)
    r = subprocess.run([os.path.join(bin_dir, binary), *args], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout)
    return r.returncode, r.stdout


def expect(ok, what, output=""):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)
        print("\n".join(output.splitlines()[-25:]))


def rows(output):
    return [m.groups() for m in map(ROW.match, output.splitlines()) if m]


def kernel_dir(name, line):
    d = os.path.join(work, name)
    os.makedirs(d)
    with open(solution_kernel) as f:
        text = f.read()
    with open(os.path.join(d, "mmul.cl"), "w") as f:
        f.write(line + "\n" + text)
    return d


solution = "test-20_sgemm_tune-solution"

# 1. The solution tuned.
out_file = os.path.join(work, "solution.line")
code, out = run(solution, {"WORKBOOK_TUNE": out_file})
table = rows(out)
expect(code == 0 and len(table) >= 6 and all(r[3] == "ok" for r in table),
       f"the tuner checked and timed {len(table)} candidates of the solution, all ok", out)
line = open(out_file).read().strip() if os.path.exists(out_file) else ""
fields = line[len("// tuned: "):].split(" | ") if line.startswith("// tuned: ") else []
expect(len(fields) == 4, f"it wrote one tuned line: {line}", out)
if not fields or not table:
    sys.exit(1)
key = fields[0] + " | " + fields[1]
speeds = {r[0]: float(r[1]) for r in table}
UNIT = {"s": 1.0, "ms": 1e-3, "us": 1e-6}


def seconds(text):
    number, unit = text.split()
    return float(number) * UNIT[unit]


# The tuner picks by its unrounded times; the table prints them rounded, so two candidates can
# read the same. Any candidate at the table's fastest printed time is a right choice.
times = {r[0]: seconds(r[2]) for r in table}
fastest = [s for s in times if times[s] == min(times.values())]
slowest = min(speeds, key=speeds.get)
expect(fields[2] in fastest,
       f"the line names the fastest candidate ({' or '.join(fastest)}, {speeds[fastest[0]]} GFLOPS)", out)
print(f"  slowest: {slowest} ({speeds[slowest]} GFLOPS)")

# 2. A kernel wrong without prefetching: those candidates fail and are never chosen.
out_file = os.path.join(work, "mutant.line")
code, out = run("test-20_sgemm_tune-mutant-one_set_fetches_tile_0", {"WORKBOOK_TUNE": out_file})
table = rows(out)
failed = [r[0] for r in table if r[3].startswith("FAILED")]
expect(code == 0 and failed and all("PREFETCH=0" in s for s in failed)
       and all(r[3] == "ok" for r in table if "PREFETCH=1" in r[0]),
       f"on the planted bug, the {len(failed)} candidates without prefetching FAILED, the others ok", out)
mutant_line = open(out_file).read() if os.path.exists(out_file) else ""
expect("PREFETCH=1" in mutant_line, f"and the line chosen prefetches: {mutant_line.strip()}", out)

# 3. The reference tuned by the instructor.
code, out = run(solution, {"WORKBOOK_TUNE": os.path.join(work, "reference.line"), "WORKBOOK_TUNE_REFERENCE": "1"})
reference_text = open(os.path.join(work, "reference.toml")).read() if os.path.exists(os.path.join(work, "reference.toml")) else ""
expect(code == 0 and "[20_sgemm_tune" in reference_text and fields[0] in reference_text,
       "the reference's tuning is stored in the reference file under this device", out + reference_text)

# 4. Slow and fast student lines against the tuned reference.
slow = kernel_dir("slow", f"// tuned: {key} | {slowest} | 1.0 GFLOPS at N = 512")
code, out = run(solution, {"WORKBOOK_KERNEL_DIR": slow}, "--test-case=*speed*")
expect(code != 0 and "too slow for this rung" in out and "tuned for this device by your instructor" in out,
       "a line at the slowest candidate fails the speed check against the tuned reference", out)
fast = kernel_dir("fast", f"// tuned: {key} | {fastest[0]} | 1.0 GFLOPS at N = 512")
code, out = run(solution, {"WORKBOOK_KERNEL_DIR": fast}, "--test-case=*speed*")
expect(code == 0 and "your tuned line for this device" in out, "a line at the fastest passes it", out)

# 5. Lines that are not for this device, or not a candidate: ignored, with the reason.
other = kernel_dir("other", f"// tuned: Other GPU | 1.0 | {slowest} | 1.0 GFLOPS at N = 512")
code, out = run(solution, {"WORKBOOK_KERNEL_DIR": other}, "--test-case=*any N*")
expect(code == 0 and "tuned for Other GPU | 1.0 only, not for this device" in out and "ignored" in out,
       "a line for another device is ignored, with the reason", out)
odd = kernel_dir("odd", f"// tuned: {key} | TSM=16 TSN=16 TSK=16 WPTM=4 WPTN=4 PAD=0 PREFETCH=1 | 1.0 GFLOPS at N = 512")
code, out = run(solution, {"WORKBOOK_KERNEL_DIR": odd}, "--test-case=*any N*")
expect(code == 0 and "not one of this exercise's candidates here: ignored" in out,
       "a line naming a shape that is no candidate is ignored, with the reason", out)

print(f"{'PASS' if not failures else 'FAIL'}: exercise 20's tuner ({len(failures)} failure(s))")
sys.exit(1 if failures else 0)
