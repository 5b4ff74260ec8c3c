#!/usr/bin/env python3
"""Exercise 20's tuner and tuned lines, end to end on the suite's device (PoCL).

  tuning_e2e.py BIN_DIR SOLUTION_KERNEL WORK_DIR

1. The tuner on the solution: every candidate checked and timed in interleaved rounds, the one
   with the fastest round written as a line for this device, and the table's ties consistent with
   its own spreads (read from the table, nothing timed again).
2. On a planted bug that is wrong without prefetching: those candidates FAILED, one that
   prefetches chosen (a choice that fails its check is never saved).
3. The reference tuned (--reference): stored in the reference file, and the check says so.
4. A student line naming the slowest candidate of the reference's own tuning table, against the
   tuned reference: "too slow for this rung", asserted only where that table shows it below the
   bar beyond its spread (a premise from one side-by-side table, never from one timing). The line
   at the reference's own choice (the same kernel at the same shape, side by side): passes.
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
# [ i/n ]  shape  GFLOPS  fastest  next  median  spread  check ("-" for a candidate that failed)
ROW = re.compile(r"^\[\s*\d+/\d+\s*\]\s+(TSM=\S+(?: \w+=\d+)*)\s+(\S+)\s+(-|\S+ ms)\s+(-|\S+ ms)\s+(-|\S+ ms)"
                 r"\s+(-|\S+%)\s+(.*)$")
BAR = 0.85         # exercise 20's speed check: this fraction of the reference's speed (TunedSpec::of_reference)
NOISE_FLOOR = 0.02  # tuning_rank.hpp's noise_floor
SLACK = 1e-3        # the table's rounding (times to 0.1 us, spreads to 0.1%)


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


class Row:
    def __init__(self, g):
        self.shape, gflops, fastest, nxt, median, spread, self.note = g
        self.ok = self.note.startswith("ok")
        self.fastest = float(fastest.split()[0]) if self.ok else None
        self.spread = float(spread[:-1]) / 100 if self.ok else None


def table_of(output):
    return {r.shape: r for r in map(Row, rows(output))}


def noise(a, b):
    return max(NOISE_FLOOR, a.spread, b.spread)


def check_ties(table, chosen, what, output):
    """The tuner's rule, checked on its own table: the chosen has the fastest round; a candidate is
    marked tied exactly when it is not slower than that beyond the larger of the two spreads."""
    ran = [r for r in table.values() if r.ok]
    lead = min(r.fastest for r in ran)
    expect(chosen in table and table[chosen].ok and table[chosen].fastest <= lead + SLACK and "chosen" in table[chosen].note,
           f"{what}: the chosen {chosen} has the fastest round ({lead} ms)", output)
    c = table.get(chosen)
    for r in ran:
        if c is None or r is c:
            continue
        limit = c.fastest * (1 + noise(r, c))
        marked = "tied" in r.note
        if abs(r.fastest - limit) > SLACK * 10 + limit * SLACK:  # not on the edge, where rounding decides
            expect(marked == (r.fastest <= limit),
                   f"{what}: {r.shape} at {r.fastest} ms is {'tied' if marked else 'not tied'} with the chosen "
                   f"(limit {limit:.4f} ms from the spreads)", output)


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
table = table_of(out)
expect(code == 0 and len(table) >= 6 and all(r.ok for r in table.values()),
       f"the tuner checked and timed {len(table)} candidates of the solution, all ok", out)
line = open(out_file).read().strip() if os.path.exists(out_file) else ""
fields = line[len("// tuned: "):].split(" | ") if line.startswith("// tuned: ") else []
expect(len(fields) == 4, f"it wrote one tuned line: {line}", out)
if not fields or not table:
    sys.exit(1)
key = fields[0] + " | " + fields[1]
check_ties(table, fields[2], "the solution's tuning", out)
expect(("Tied within noise" in out) == any("tied" in r.note for r in table.values()),
       "it says whether the top candidates are tied within noise", out)

# 2. A kernel wrong without prefetching: those candidates fail and are never chosen.
out_file = os.path.join(work, "mutant.line")
code, out = run("test-20_sgemm_tune-mutant-one_set_fetches_tile_0", {"WORKBOOK_TUNE": out_file})
table = table_of(out)
failed = [r.shape for r in table.values() if r.note.startswith("FAILED")]
expect(code == 0 and failed and all("PREFETCH=0" in s for s in failed)
       and all(r.ok for r in table.values() if "PREFETCH=1" in r.shape),
       f"on the planted bug, the {len(failed)} candidates without prefetching FAILED, the others ok", out)
mutant_line = open(out_file).read() if os.path.exists(out_file) else ""
expect("PREFETCH=1" in mutant_line, f"and the line chosen prefetches: {mutant_line.strip()}", out)

# 3. The reference tuned by the instructor.
code, out = run(solution, {"WORKBOOK_TUNE": os.path.join(work, "reference.line"), "WORKBOOK_TUNE_REFERENCE": "1"})
reference_text = open(os.path.join(work, "reference.toml")).read() if os.path.exists(os.path.join(work, "reference.toml")) else ""
expect(code == 0 and "[20_sgemm_tune" in reference_text and fields[0] in reference_text,
       "the reference's tuning is stored in the reference file under this device", out + reference_text)
reference_line = open(os.path.join(work, "reference.line")).read().strip() if os.path.exists(os.path.join(work, "reference.line")) else ""
reference_table = table_of(out)
reference_shape = reference_line.split(" | ")[2] if reference_line.count(" | ") == 3 else ""
check_ties(reference_table, reference_shape, "the reference's tuning", out)
if not reference_shape or reference_shape not in reference_table:
    sys.exit(1)

# 4. Slow and fast student lines against the tuned reference. The slowest candidate of the
# reference's own table (one run, every candidate taking turns) is asserted too slow only where
# that table puts it below the bar beyond the two spreads; the speed check then times it side by
# side with the reference again. No premise from one timing taken at another moment.
ran = [r for r in reference_table.values() if r.ok]
slowest = max(ran, key=lambda r: r.fastest)
best = reference_table[reference_shape]
ratio = best.fastest / slowest.fastest
margin = noise(slowest, best)
print(f"  slowest in the reference's table: {slowest.shape} at {ratio:.2f}x the chosen, spread {margin:.1%}")
if ratio * (1 + margin) < BAR:
    slow = kernel_dir("slow", f"// tuned: {key} | {slowest.shape} | 1.0 GFLOPS at N = 512")
    code, out = run(solution, {"WORKBOOK_KERNEL_DIR": slow}, "--test-case=*speed*")
    expect(code != 0 and "too slow for this rung" in out and "tuned for this device by your instructor" in out,
           f"a line at the slowest candidate ({ratio:.2f}x, below {BAR}x beyond the spread) fails the speed check "
           "against the tuned reference", out)
else:
    print(f"  not asserted: the slowest is within reach of the {BAR}x bar given the spread "
          f"({ratio:.2f}x x {1 + margin:.2f} >= {BAR}); no candidate is known to be too slow here")
fast = kernel_dir("fast", f"// tuned: {key} | {reference_shape} | 1.0 GFLOPS at N = 512")
code, out = run(solution, {"WORKBOOK_KERNEL_DIR": fast}, "--test-case=*speed*")
if code != 0 and "too slow for this rung" in out:
    # The same kernel in two PoCL runner processes can run at different speeds for the processes'
    # whole lives (0.81x to 1.27x of itself, best of 9 rounds, on this idle 2-core VM): once more,
    # in fresh processes, and said; two in a row fail.
    print("note: the same kernel and shape timed too slow against itself; once more in fresh processes:\n"
          + "\n".join(l for l in out.splitlines() if l.lstrip().startswith(("yours", "reference"))))
    code, out = run(solution, {"WORKBOOK_KERNEL_DIR": fast}, "--test-case=*speed*")
expect(code == 0 and "your tuned line for this device" in out,
       "a line at the reference's own choice passes it (the same kernel and shape, side by side)", out)

# 5. Lines that are not for this device, or not a candidate: ignored, with the reason.
other = kernel_dir("other", f"// tuned: Other GPU | 1.0 | {slowest.shape} | 1.0 GFLOPS at N = 512")
code, out = run(solution, {"WORKBOOK_KERNEL_DIR": other}, "--test-case=*any N*")
expect(code == 0 and "tuned for Other GPU | 1.0 only, not for this device" in out and "ignored" in out,
       "a line for another device is ignored, with the reason", out)
odd = kernel_dir("odd", f"// tuned: {key} | TSM=16 TSN=16 TSK=16 WPTM=4 WPTN=4 PAD=0 PREFETCH=1 | 1.0 GFLOPS at N = 512")
code, out = run(solution, {"WORKBOOK_KERNEL_DIR": odd}, "--test-case=*any N*")
expect(code == 0 and "not one of this exercise's candidates here: ignored" in out,
       "a line naming a shape that is no candidate is ignored, with the reason", out)

print(f"{'PASS' if not failures else 'FAIL'}: exercise 20's tuner ({len(failures)} failure(s))")
sys.exit(1 if failures else 0)
