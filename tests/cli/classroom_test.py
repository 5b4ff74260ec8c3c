"""The GitHub Classroom template (classroom/): its workflow is what course.toml gives, has the keys
GitHub's workflow schema requires, one grading step per exercise worth its weight, and its grading
commands, taken from the YAML, score a starter repository 0 and a solved one full points.

  classroom_test.py local SOURCE SCRATCH WORK   the YAML, then the commands on this machine against
                                                the cli_scratch workbook (exercises 01-03)
  classroom_test.py image SOURCE SCRATCH WORK   the workflow's course step and the same commands in
                                                the course image with podman (exit 77 without it)

Here the commands run as the command grader runs them (sh, only PATH and HOME in the environment,
the repository as working directory); locally the image's /workbook is the scratch workbook and
`workbook` on PATH is the scratch's. Prints ok/FAIL lines; exit 1 on any failure.
"""
import os
import shlex
import shutil
import subprocess
import sys
import time
import tomllib

try:
    import yaml
except ImportError:
    sys.exit("FAIL: no PyYAML for this python3 (Debian: apt-get install python3-yaml)")

mode, source, scratch, work = sys.argv[1:5]
workflow_file = os.path.join(source, "classroom", ".github", "workflows", "classroom.yml")
failures = 0
started = time.monotonic()
GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"


def check(what, ok, detail=""):
    global failures
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok or not detail else "\n" + str(detail)))
    failures += 0 if ok else 1
    return ok


def load_course(path):
    with open(path, "rb") as f:
        return tomllib.load(f)["exercise"]


course = load_course(os.path.join(source, "course.toml"))
with open(workflow_file) as f:
    wf = yaml.safe_load(f)
# PyYAML (YAML 1.1) reads a bare `on:` key as the boolean True; the generated workflow quotes it.
jobs = wf.get("jobs") or {}
job = next(iter(jobs.values()), {}) if len(jobs) == 1 else {}
steps = job.get("steps") or []
grading = [s for s in steps if s.get("uses") == GRADER]
by_test = {s["with"]["test-name"]: s for s in grading if isinstance(s.get("with"), dict) and "test-name" in s["with"]}
reporter = next((s for s in steps if s.get("uses") == REPORTER), None)
course_step = next((s for s in steps if "run" in s and "/opt/workbook/src" in s["run"]), None)


def step_of(ex):
    return by_test.get(f"{ex['id']}_{ex['name']}")


if mode == "local":
    # (a) The YAML: generated, the schema's required keys, one step per exercise, the reporter.
    gen = subprocess.run([sys.executable, os.path.join(source, "classroom", "make_workflow.py"), "--check"],
                         capture_output=True, text=True)
    check("the committed workflow is what classroom/make_workflow.py makes of course.toml", gen.returncode == 0,
          gen.stdout + gen.stderr)
    check("the workflow has `on` and `jobs`", ("on" in wf or True in wf) and isinstance(jobs, dict) and len(jobs) > 0, list(wf))
    check("every job has runs-on and a list of steps",
          all(isinstance(j, dict) and "runs-on" in j and isinstance(j.get("steps"), list) and j["steps"]
              for j in jobs.values()))
    check("every step has `uses` or `run`", all(isinstance(s, dict) and ("uses" in s or "run" in s)
                                                for j in jobs.values() for s in j.get("steps") or []))
    check("the job runs in the course image", "opencl-workbook" in str((job.get("container") or {}).get("image")),
          job.get("container"))
    check("a step puts the image's course at /workbook before the grading steps",
          course_step is not None and steps.index(course_step) < min(steps.index(s) for s in grading or [course_step]))
    check("one grading step per exercise, in course order",
          [s.get("with", {}).get("test-name") for s in grading] == [f"{e['id']}_{e['name']}" for e in course],
          [s.get("with", {}).get("test-name") for s in grading])
    missing_inputs = [s.get("id") for s in grading
                      if not all(k in (s.get("with") or {}) for k in ("test-name", "command", "timeout", "max-score"))]
    check("each grading step has test-name, command, timeout and max-score", not missing_inputs, missing_inputs)
    wrong = [(e["id"], (step_of(e) or {}).get("with", {}).get("max-score"), e["weight"]) for e in course
             if (step_of(e) or {}).get("with", {}).get("max-score") != e["weight"]]
    check("each exercise's max-score is its weight in course.toml", not wrong, f"(id, max-score, weight): {wrong}")
    ids = [s.get("id", "") for s in grading]
    check("step ids are letters and digits (the reporter's runners pattern)", all(i.isalnum() for i in ids), ids)
    runners = [r.strip() for r in str((reporter or {}).get("with", {}).get("runners", "")).split(",")]
    check("the reporter reads every grading step (runners)", runners == ids, runners)
    env = (reporter or {}).get("env") or {}
    bad_env = [i for i in ids if env.get(f"{i.upper()}_RESULTS", "").replace(" ", "") != f"${{{{steps.{i}.outputs.result}}}}"]
    check("the reporter gets each step's result as <ID>_RESULTS", not bad_env, bad_env)
    check("the reporter runs even when a step before it failed", (reporter or {}).get("if") == "always()")

if not by_test:
    sys.exit("FAIL: no grading steps in the workflow: nothing to run")


# (b) Two student repositories: the workbook as it ships, and with every solution copied in.
def make_repo(name, solved):
    repo = os.path.join(work, name)
    os.makedirs(repo)
    shutil.copy(os.path.join(source, "course.toml"), os.path.join(repo, "course.toml"))
    shutil.copytree(os.path.join(source, "exercises"), os.path.join(repo, "exercises"), symlinks=True)
    if solved:
        for e in course:
            d = f"{e['id']}_{e['name']}"
            for f in e["edit"]:
                shutil.copy(os.path.join(source, "solutions", d, f), os.path.join(repo, "exercises", d, f))
    return repo


shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "home"))
repos = {"starter": make_repo("starter", False), "solved": make_repo("solved", True)}
# The exercises the scratch workbook has built (its course.toml is cut to them).
quick = load_course(os.path.join(scratch, "course.toml"))
full = sum(e["weight"] for e in quick)
print(f"graded here: exercises {', '.join(e['id'] for e in quick)} ({full} points)")


def expect_scores(scores):
    """scores: {repo: {exercise id: points}}"""
    for name, want in (("starter", 0), ("solved", full)):
        got = sum(scores[name].values())
        check(f"the {name} repository scores {want} of {full}", got == want, scores[name])


if mode == "local":
    # The commands as the command grader runs them: sh -c, PATH and HOME only, the repository as
    # working directory, the step's timeout (minutes) on each. /workbook is the scratch workbook.
    originals = {}
    for e in quick:
        d = f"{e['id']}_{e['name']}"
        for f in e["edit"]:
            p = os.path.join(scratch, "exercises", d, f)
            with open(p, "rb") as fh:
                originals[p] = fh.read()
    env = {"PATH": os.path.join(scratch, "build", "bin") + os.pathsep + os.environ["PATH"],
           "HOME": os.path.join(work, "home")}
    scores = {}
    try:
        for name in ("solved", "starter"):
            scores[name] = {}
            for e in quick:
                w = step_of(e)["with"]
                took = time.monotonic()
                ok = True
                for cmd in (w.get("setup-command"), w["command"]):
                    if not cmd:
                        continue
                    cmd = cmd.replace("/workbook/", scratch.rstrip("/") + "/")
                    try:
                        r = subprocess.run(["sh", "-c", cmd], cwd=repos[name], env=env, capture_output=True,
                                           text=True, timeout=float(w["timeout"]) * 60)
                        ok = r.returncode == 0
                        lines = (r.stdout + r.stderr).strip().splitlines()
                        last = [l for l in lines if l.startswith("FAIL")][:1] or lines[-1:] or [""]
                    except subprocess.TimeoutExpired:
                        ok, last = False, ["timed out"]
                    if not ok:
                        break
                scores[name][e["id"]] = w["max-score"] if ok else 0
                print(f"  {name} {e['id']}: {'pass' if ok else 'fail'} ({time.monotonic() - took:.1f} s){'' if ok else ': ' + last[0]}")
    finally:
        for p, data in originals.items():
            with open(p, "wb") as fh:
                fh.write(data)
    expect_scores(scores)
else:
    # In the image: the workflow's course step, then the same commands, unchanged.
    engine = os.environ.get("WORKBOOK_CONTAINER_ENGINE", "podman")

    def skip(why):
        print(f"SKIP (the image part only; classroom.template ran the commands on this machine): {why}")
        sys.exit(77)

    if course_step is None or any(step_of(e) is None for e in quick):
        sys.exit("FAIL: the workflow lacks its course step or a grading step (classroom.template says which)")
    if not shutil.which(engine):
        skip(f"{engine} is not installed (scripts/setup.sh --all installs it)")
    # The image of this commit: WORKBOOK_IMAGE, else the course image of this commit where one was
    # built (scripts/image.sh), else a cut one made here with the scratch's exercises only (same
    # packages, entry point and build steps; about half the full image's build time: 247 s here, 475-522 s).
    commit = subprocess.run(["git", "-C", source, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    ids = ",".join(e["id"] for e in quick)
    image = os.environ.get("WORKBOOK_IMAGE") or f"opencl-workbook:{commit}"
    present = lambda name: subprocess.run([engine, "image", "inspect", name], capture_output=True).returncode == 0
    if not present(image):
        if "WORKBOOK_IMAGE" in os.environ or not commit:
            skip(f"the image {image} is not present ({engine} images)" if commit else
                 f"{source} is not a git checkout, so there is no commit to build an image of")
        image = f"opencl-workbook-cut:{commit}-{ids.replace(',', '-')}"
        if not present(image):
            if os.geteuid() != 0:
                skip("no course image of this commit, and building one needs root: sudo scripts/image.sh "
                     f"--only {ids} --tag {image}")
            print(f"building the cut image {image} (scripts/image.sh --only {ids}) ...", flush=True)
            took = time.monotonic()
            r = subprocess.run(["bash", os.path.join(source, "scripts", "image.sh"), "--only", ids, "--tag", image,
                                "--jobs", "2", "--out", work + "-build"], capture_output=True, text=True, timeout=1500)
            check(f"scripts/image.sh builds the cut image ({time.monotonic() - took:.0f} s)", r.returncode == 0,
                  (r.stdout + r.stderr)[-4000:])
            if r.returncode != 0:
                sys.exit(1)
            # Only the newest cut image and none of its tarballs stay (about a gigabyte each).
            for f in os.listdir(work + "-build"):
                if f.endswith(".rootfs.tar"):
                    os.remove(os.path.join(work + "-build", f))
            older = subprocess.run([engine, "images", "--format", "{{.Repository}}:{{.Tag}}", "opencl-workbook-cut"],
                                   capture_output=True, text=True).stdout.split()
            for name in older:
                if name.split("/")[-1] != image:
                    subprocess.run([engine, "rmi", name], capture_output=True)
    print(f"image: {image}")
    base = [engine]
    if subprocess.run([*base, "run", "--rm", "--entrypoint", "/bin/true", image], capture_output=True).returncode != 0:
        base = [engine, "--runtime", "runc"] if engine == "podman" and shutil.which("runc") else base
        hard = subprocess.run(["bash", "-c", "echo $(ulimit -Sn):$(ulimit -Hn) $(ulimit -Hu)"], capture_output=True,
                              text=True).stdout.split()
        nproc = 32768 if hard[1] == "unlimited" else min(int(hard[1]) - 1, 32768)
        base += ["run", "--ulimit", f"nofile={hard[0]}", "--ulimit", f"nproc={nproc}:{nproc}"]
        print(f"note: containers start here only as: {' '.join(base)}")
    else:
        base += ["run"]
    script = ["set -e", course_step["run"], "set +e"]
    for e in quick:
        w = step_of(e)["with"]
        cmd = " && ".join(c for c in (w.get("setup-command"), w["command"]) if c)
        script.append(f"if timeout {int(float(w['timeout']) * 60)} env -i PATH=\"$(cat $GITHUB_PATH):$PATH\" "
                      f"HOME=/tmp/home sh -c {shlex.quote(cmd)}; then echo 'RESULT {e['id']} pass'; "
                      f"else echo 'RESULT {e['id']} fail'; fi")
    scores = {}
    for name, repo in repos.items():
        r = subprocess.run([*base, "--rm", "-v", f"{repo}:/github/workspace:ro", "-w", "/github/workspace",
                            "-e", "GITHUB_PATH=/tmp/github_path", "--entrypoint", "/bin/sh", image, "-c",
                            "mkdir -p /tmp/home; " + "\n".join(script)], capture_output=True, text=True, timeout=1800)
        check(f"the workflow's course step runs in the image ({name})", "RESULT" in r.stdout, r.stdout + r.stderr)
        results = dict(l.split()[1:3] for l in r.stdout.splitlines() if l.startswith("RESULT "))
        scores[name] = {e["id"]: step_of(e)["with"]["max-score"] if results.get(e["id"]) == "pass" else 0 for e in quick}
        print(f"  {name}: {results}")
    expect_scores(scores)

print(f"{'FAILED' if failures else 'passed'} in {time.monotonic() - started:.0f} s")
sys.exit(1 if failures else 0)
