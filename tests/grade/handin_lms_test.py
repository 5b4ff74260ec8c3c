"""Hand-ins graded, and the gradebook exported for Canvas and Moodle.

  handin_lms_test.py WORKBOOK SOURCE BUILD WORK_DIR

A scratch copy of the course (sources only), solved with solutions/, is handed in with `workbook
handin` (ana.tar.gz) and also submitted as the whole folder (ben/); after `reset --all`, only 02
is solved and 01's and 05's files are deleted before the next hand-in, named as Canvas's
"Download Submissions" names files (cydney_30003_777_handin.tar.gz). `workbook grade --only 01
--only 02 --only 05` must give the hand-in exactly the folder's scores (full marks) and cydney 02's
alone. The exports of that class of three are compared byte for byte with files written by hand in
tests/grade/lms/: the Canvas roster lacks ben (listed in lms-unmatched.csv and on stderr) and has
Dee, who submitted nothing (blank, the default); a second run into the same --out grades nothing
again and writes Moodle's import, the total alone, Dee's a zero (--lms-missing zero). Prints ok/FAIL
lines; exit 1 on any failure.
"""
import csv
import os
import shutil
import subprocess
import sys

workbook, source, build, work = sys.argv[1:5]
lms = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lms")
wb, subs, out = (os.path.join(work, d) for d in ("wb", "submissions", "out"))
failures = 0


def check(what, ok, detail=""):
    global failures
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok or not detail else "\n" + detail))
    failures += 0 if ok else 1


def student(*args):
    r = subprocess.run([workbook, "--root", wb, "--build-dir", build, *args], capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout + r.stderr


def grade(*args):
    sandbox = [] if subprocess.run(["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
                                   capture_output=True).returncode == 0 else ["--no-sandbox"]
    return subprocess.run([workbook, "--root", source, "--build-dir", build, "grade", subs, "--out", out, "--only", "01",
                           "--only", "02", "--only", "05", "--no-race-check", "--roster", os.path.join(lms, "roster.csv"),
                           *sandbox, *args], capture_output=True, text=True, timeout=600)


def solve(ex):
    for f in os.listdir(os.path.join(source, "solutions", ex)):
        shutil.copy(os.path.join(source, "solutions", ex, f), os.path.join(wb, "exercises", ex))


def same_bytes(name):
    with open(os.path.join(lms, name), "rb") as a:
        want = a.read()
    got = open(os.path.join(out, name), "rb").read() if os.path.exists(os.path.join(out, name)) else b"(missing)"
    check(f"{name} is byte for byte tests/grade/lms/{name}", got == want,
          f"expected:\n{want.decode(errors='replace')}got:\n{got.decode(errors='replace')}")


shutil.rmtree(work, ignore_errors=True)
os.makedirs(wb)
os.makedirs(subs)
shutil.copy(os.path.join(source, "course.toml"), wb)
for d in ("exercises", "solutions"):
    shutil.copytree(os.path.join(source, d), os.path.join(wb, d))

status, text = student("list")  # the first start snapshots the starters, as scripts/setup.sh does
check("the scratch workbook starts", status == 0, text)
for ex in sorted(os.listdir(os.path.join(source, "solutions"))):
    if os.path.isdir(os.path.join(source, "solutions", ex)):
        solve(ex)
status, text = student("handin", "-o", os.path.join(subs, "ana.tar.gz"))
check("the solved workbook is handed in", status == 0 and "Untouched" not in text and "Missing" not in text, text)
shutil.copytree(wb, os.path.join(subs, "ben"), symlinks=True)  # the same workbook, as a whole folder

status, text = student("reset", "--all")
check("reset --all", status == 0, text)
solve("02_vadd")
os.remove(os.path.join(wb, "exercises", "01_device_info", "device_info.cpp"))
os.remove(os.path.join(wb, "exercises", "05_mmul_naive", "mmul.cl"))
status, text = student("handin", "-o", os.path.join(subs, "cydney_30003_777_handin.tar.gz"))
check("a hand-in with files missing names them",
      status == 0 and "01 (device_info.cpp)" in text and "05 (mmul.cl)" in text, text)

r = grade("--export", "canvas", "--lms-roster", os.path.join(lms, "canvas_roster.csv"), "-q")
check("grading the class with a Canvas export exits 0", r.returncode == 0, r.stdout + r.stderr)
rows = {}
if os.path.exists(os.path.join(out, "gradebook.csv")):
    with open(os.path.join(out, "gradebook.csv"), newline="") as f:
        rows = {row["submission"]: row for row in csv.DictReader(f)}
columns = ["01", "02", "05"]
scores = {name: [float(row[c]) for c in columns] for name, row in rows.items()}
check("the hand-in scores what the folder scores, exercise by exercise",
      "ana" in scores and scores.get("ana") == scores.get("ben"), str(scores))
check("both full marks (weights 1, 2, 2)", scores.get("ana") == [1.0, 2.0, 2.0], str(scores))
check("the partial hand-in scores 02 alone", scores.get("cydney_30003_777_handin") == [0.0, 2.0, 0.0], str(scores))
same_bytes("canvas-import.csv")
same_bytes("lms-unmatched.csv")
check("stderr names the submission the roster lacks and the student without one",
      "ben" in r.stderr and "Dunn, Dee" in r.stderr and "left blank" in r.stderr, r.stderr)

r = grade("--export", "moodle", "--lms-roster", os.path.join(lms, "moodle_roster.csv"), "--lms-missing", "zero",
          "--lms-total", "Workbook total")
check("exporting for Moodle from the finished run exits 0", r.returncode == 0, r.stdout + r.stderr)
check("and grades nothing again", "3 already graded" in r.stdout, r.stdout)
same_bytes("moodle-import.csv")
same_bytes("lms-unmatched.csv")

print("all ok" if failures == 0 else f"{failures} check(s) failed")
sys.exit(1 if failures else 0)
