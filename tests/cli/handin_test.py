"""`workbook handin` and `workbook reset --all` on a scratch copy of the course (no build needed).

  handin_test.py WORKBOOK SOURCE WORK_DIR

Checked: a fresh workbook's hand-in holds exactly the files course.toml's edit lists name (read
here from course.toml itself), byte for byte, plus handin.json, and names every exercise
untouched; a symbolic link, a file past the size cap, a file outside the edit lists and a file
outside every exercise folder are left out and named with the reason (exit 1 for the refused edited
files), a missing file is named; an archive name that is not .tar.gz is refused; in a git clone an
added file is named too; `reset --all` puts every starter back (the link replaced by a file, the
missing file restored) and keeps the student's files in one backup folder. Prints ok/FAIL lines;
exit 1 on any failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib

workbook, source, work = sys.argv[1:4]
wb = os.path.join(work, "wb")
failures = 0


def check(what, ok, detail=""):
    global failures
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok or not detail else "\n" + detail))
    failures += 0 if ok else 1


def run(*args):
    r = subprocess.run([workbook, "--root", wb, "--build-dir", os.path.join(work, "no-build"), *args],
                       capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout + r.stderr


def members(archive):
    with tarfile.open(archive) as t:
        return {m.name: t.extractfile(m).read() for m in t.getmembers() if m.isfile()}


def read(path):
    with open(path, "rb") as f:
        return f.read()


shutil.rmtree(work, ignore_errors=True)
os.makedirs(wb)
shutil.copy(os.path.join(source, "course.toml"), wb)
for d in ("exercises", "solutions"):
    shutil.copytree(os.path.join(source, d), os.path.join(wb, d), symlinks=True)
with open(os.path.join(wb, "course.toml"), "rb") as f:
    course = tomllib.load(f)["exercise"]
edited = {f"exercises/{e['id']}_{e['name']}/{f}": os.path.join(source, "exercises", f"{e['id']}_{e['name']}", f)
          for e in course for f in e["edit"]}
ids = [e["id"] for e in course]

# A fresh workbook: every starter, nothing else, every exercise named untouched.
status, out = run("handin", "-o", os.path.join(work, "fresh.tar.gz"))
check("handin of a fresh workbook exits 0", status == 0, out)
check("it says where the archive is", os.path.join(work, "fresh.tar.gz") in out, out)
check("it names every exercise untouched", "Untouched (still exactly the starter): " + " ".join(ids) in out, out)
got = members(os.path.join(work, "fresh.tar.gz"))
check("the archive holds exactly the edited files and handin.json",
      set(got) == set(edited) | {"handin.json"}, f"extra: {set(got) - set(edited)}, lacking: {set(edited) - set(got)}")
check("each file byte for byte the starter", all(got.get(p) == read(s) for p, s in edited.items()))
manifest = json.loads(got.get("handin.json", b"{}"))
check("the manifest says it is for information only", "information only" in manifest.get("about", ""), str(manifest))
check("the manifest lists every exercise with its local result",
      [e.get("id") for e in manifest.get("exercises", [])] == ids and
      all(e.get("local_status") == "pending" for e in manifest["exercises"]), str(manifest.get("exercises")))
check("the manifest names a device or why none", "device" in manifest, str(manifest))

# Things that are not handed in, each named with its reason.
ex = os.path.join(wb, "exercises")
os.remove(os.path.join(ex, "02_vadd", "vadd.cl"))
os.symlink(os.path.join(wb, "solutions", "02_vadd", "vadd.cl"), os.path.join(ex, "02_vadd", "vadd.cl"))
with open(os.path.join(ex, "02_vadd", "helper.h"), "w") as f:
    f.write("#pragma once\n")
with open(os.path.join(ex, "notes.txt"), "w") as f:
    f.write("my notes\n")
with open(os.path.join(ex, "05_mmul_naive", "mmul.cl"), "a") as f:
    f.write("// padding\n" * 200000)  # 2.2 MiB
os.remove(os.path.join(ex, "01_device_info", "device_info.cpp"))
shutil.copy(os.path.join(source, "solutions", "03_vadd_chain", "vadd_chain.cpp"), os.path.join(ex, "03_vadd_chain"))
status, out = run("handin", "-o", work)  # a folder: the default name inside it
check("a refused edited file makes the hand-in exit 1", status == 1, out)
archives = [f for f in os.listdir(work) if f.startswith("handin-") and f.endswith(".tar.gz")]
check("given a folder, the archive goes there as handin-<time>.tar.gz", len(archives) == 1, str(os.listdir(work)))
got = members(os.path.join(work, archives[0])) if archives else {}
check("the symbolic link is left out and named",
      "exercises/02_vadd/vadd.cl" not in got and "exercises/02_vadd/vadd.cl: a symbolic link" in out, out)
check("the oversized file is left out and named",
      "exercises/05_mmul_naive/mmul.cl" not in got and "exercises/05_mmul_naive/mmul.cl: 2.1 MiB, larger than the 1.0 MiB" in out, out)
check("a file outside the edit list is left out and named",
      "exercises/02_vadd/helper.h" not in got and "exercises/02_vadd/helper.h: not a file you edit" in out, out)
check("a file outside every exercise folder is left out and named",
      "exercises/notes.txt" not in got and "exercises/notes.txt: outside every exercise folder" in out, out)
check("a missing file is named", "Missing files (that exercise scores 0): 01 (device_info.cpp)" in out, out)
check("the rest is handed in: the edited 03 and 02's host file",
      got.get("exercises/03_vadd_chain/vadd_chain.cpp") == read(os.path.join(source, "solutions", "03_vadd_chain",
                                                                             "vadd_chain.cpp")) and
      "exercises/02_vadd/vadd_host.cpp" in got, str(sorted(got)))
check("exactly the edited files that are plain and small, and handin.json",
      set(got) == set(edited) - {"exercises/02_vadd/vadd.cl", "exercises/05_mmul_naive/mmul.cl",
                                 "exercises/01_device_info/device_info.cpp"} | {"handin.json"}, str(sorted(got)))
refused = {r["path"] for r in json.loads(got.get("handin.json", b"{}")).get("not_handed_in", [])}
check("the manifest lists what was left out",
      refused == {"exercises/02_vadd/vadd.cl", "exercises/05_mmul_naive/mmul.cl", "exercises/02_vadd/helper.h",
                  "exercises/notes.txt"}, str(refused))
status, out = run("handin", "-o", os.path.join(work, "mine.zip"))
check("an archive name the grader would not unpack as tar is refused", status == 2 and ".tar.gz" in out, out)

# reset --all: every starter back, the student's files in one folder.
status, out = run("reset")
check("reset without an exercise or --all is an error", status == 2, out)
status, out = run("reset", "--all")
check("reset --all exits 0", status == 0, out)
check("reset --all says where the backup is", "Your previous files are kept in .workbook/backups/all-" in out, out)
check("every starter is back, byte for byte (a link replaced, a missing file restored)",
      all(os.path.isfile(os.path.join(wb, p)) and not os.path.islink(os.path.join(wb, p)) and
          read(os.path.join(wb, p)) == read(s) for p, s in edited.items()))
backups = [d for d in os.listdir(os.path.join(wb, ".workbook", "backups")) if d.startswith("all-")]
check("one backup folder", len(backups) == 1, str(backups))
b = os.path.join(wb, ".workbook", "backups", backups[0]) if backups else ""
check("the backup keeps the student's 03",
      read(os.path.join(b, "03_vadd_chain", "vadd_chain.cpp")) ==
      read(os.path.join(source, "solutions", "03_vadd_chain", "vadd_chain.cpp")))
check("the backup keeps the link as a link", os.path.islink(os.path.join(b, "02_vadd", "vadd.cl")))
check("the backup keeps the large file", os.path.getsize(os.path.join(b, "05_mmul_naive", "mmul.cl")) > 2 << 20)
check("a missing file has no backup", not os.path.exists(os.path.join(b, "01_device_info", "device_info.cpp")))
status, out = run("handin", "-o", os.path.join(work, "after-reset.tar.gz"))
check("after reset --all every exercise is untouched again",
      status == 0 and "Untouched (still exactly the starter): " + " ".join(ids) in out, out)

# In a git clone, what git sees as added or changed outside the edit lists is named.
git = ["git", "-C", wb, "-c", "user.email=t@example.com", "-c", "user.name=t"]
subprocess.run(git + ["init", "-q"], check=True)
subprocess.run(git + ["add", "course.toml", "exercises", "solutions"], check=True)
subprocess.run(git + ["commit", "-qm", "course"], check=True)
with open(os.path.join(ex, "02_vadd", "README.md"), "a") as f:
    f.write("my note\n")
with open(os.path.join(ex, "02_vadd", "vadd.cl"), "a") as f:
    f.write("// mine\n")
status, out = run("handin", "-o", os.path.join(work, "git.tar.gz"))
got = members(os.path.join(work, "git.tar.gz"))
manifest = json.loads(got.get("handin.json", b"{}"))
check("in a git clone a changed README is named, the edited kernel handed in",
      status == 0 and "exercises/02_vadd/README.md: not a file you edit" in out and
      got.get("exercises/02_vadd/vadd.cl", b"").endswith(b"// mine\n") and "helper.h" not in out, out)
check("in a git clone the manifest names the commit", len(manifest.get("course", {}).get("commit") or "") == 40,
      str(manifest.get("course")))

print("all ok" if failures == 0 else f"{failures} check(s) failed")
sys.exit(1 if failures else 0)
