#!/usr/bin/env python3
"""End-to-end test of a contest judged on two devices (contest/zoo.hpp): this machine's PoCL device
reached directly ("local") and the same device reached through a single-node Slurm ("slurm"), so
the two boards must rank the entries alike (their timings are printed; how closely they agree is
measured by bench/results/zoo/, not asserted here).

Five entries (the naive baseline, the tuned reference chosen on each device, two correct kernels
and one that is right only at the public sizes) are judged through both paths. The test asserts
every judging's state transitions (from the database's event log), the boards, the cross-device
view, the page in headless Chromium (where installed), and that a Slurm job killed mid-run shows
as failed, with its reason, and is judged again after `contest retry`. Job tokens: the upload
token and made-up tokens are refused by the job API, and no token file is left behind.

    zoo_test.py WORKBOOK SCRATCH SOURCE_DIR
Exits 0 when every check holds, 1 otherwise, 77 (skipped, with the reason) where Slurm cannot
start or Oclgrind is missing.
"""
import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request

failures = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok or not detail else f"\n     {detail}"), flush=True)
    if not ok:
        failures.append(what)
    return ok


def skip(why):
    print(f"SKIP: {why}", flush=True)
    sys.exit(77)


wb, scratch, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
LOCAL, SLURM = "PoCL here", "PoCL via Slurm"
BASELINE, REFERENCE = "(baseline: naive kernel)", "(reference: instructor's tuned kernel)"
TOKEN = "upload-token-" + os.urandom(8).hex()

shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(os.path.join(scratch, "tmp"))
os.chmod(scratch, 0o755)
if not shutil.which("oclgrind"):
    skip("Oclgrind is not installed (the judge's race pass needs it)")

start_slurm = os.path.join(src, "tests", "slurm", "start_slurm.sh")
slurm_dir = os.path.join(scratch, "slurm")
started = subprocess.run(["bash", start_slurm, "start", slurm_dir], capture_output=True, text=True)
if started.returncode == 77:
    skip(started.stderr.strip())
if started.returncode != 0:
    print(f"FAIL: start_slurm.sh: {started.stderr}")
    sys.exit(1)
env = dict(os.environ)
env["SLURM_CONF"] = re.search(r"SLURM_CONF=(\S+)", started.stdout).group(1)
env["TMPDIR"] = os.path.join(scratch, "tmp")  # the judge's work folders
env["WORKBOOK_TUNING_FILE"] = os.path.join(scratch, "tuning.toml")  # this machine's tuning must not matter
db_path = os.path.join(scratch, "contest.db")
zoo = os.path.join(scratch, "zoo.toml")
with open(zoo, "w") as f:
    f.write(f'[[device]]\nname = "{LOCAL}"\nreach = "local"\n\n'
            f'[[device]]\nname = "{SLURM}"\nreach = "slurm"\npartition = "debug"\nresult_timeout_s = 400\n'
            # One job at a time on the node, as a contest's timing wants.
            f'sbatch_options = ["--exclusive"]\n')

server = None


def wbrun(*args):
    return subprocess.run([wb, "contest", "--db", db_path, *args], capture_output=True, text=True, env=env, timeout=60)


def cleanup():
    if server and server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    subprocess.run(["scancel", "--me"], env=env, capture_output=True)
    subprocess.run(["bash", start_slurm, "stop", slurm_dir], capture_output=True)


def http(method, path, token=None, body=None, content_type="application/json"):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def upload(alias, source):
    boundary = "zoo" + os.urandom(8).hex()
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="alias"\r\n\r\n{alias}\r\n',
             f'--{boundary}\r\nContent-Disposition: form-data; name="kernel"; filename="{alias}.cl"\r\n'
             f'Content-Type: text/plain\r\n\r\n{source}\r\n', f"--{boundary}--\r\n"]
    status, text = http("POST", "/api/submit", TOKEN, "".join(parts).encode(),
                        f"multipart/form-data; boundary={boundary}")
    check(f"{alias} uploaded: 200", status == 200, text)
    return json.loads(text)["id"]


def submissions():
    return {s["id"]: s for s in json.loads(http("GET", "/api/submissions")[1])["submissions"]}


def state(subs, sid, device):
    for d in subs.get(sid, {}).get("devices", []):
        if d["device"] == device:
            return d
    return {"state": "missing", "reason": "", "job_id": ""}


def wait_for(what, predicate, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    check(what, False, f"not within {timeout} s")
    return None


def chromium_dom(fragment):
    browser = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    if not browser:
        return None
    r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        f"--user-data-dir={scratch}/profile", "--virtual-time-budget=5000", "--dump-dom",
                        f"http://127.0.0.1:{port}/{fragment}"], capture_output=True, text=True, timeout=60)
    return r.stdout


try:
    log = open(os.path.join(scratch, "serve.log"), "w")
    server = subprocess.Popen([wb, "contest", "--db", db_path, "serve", "--port", "0", "--token", TOKEN,
                               "--devices", zoo, "--n", "512", "--interval", "0", "--max-queued", "10"],
                              stdout=log, stderr=subprocess.STDOUT, env=env, cwd=scratch)
    port = None
    for _ in range(100):
        m = re.search(r"contest board: http://127\.0\.0\.1:(\d+)/", open(os.path.join(scratch, "serve.log")).read())
        if m:
            port = int(m.group(1))
            break
        time.sleep(0.1)
    if not check("the server starts with the zoo", port is not None, open(os.path.join(scratch, "serve.log")).read()):
        sys.exit(1)

    # The job API: nothing but a live job's own token opens it.
    for what, token in (("no token", None), ("the upload token", TOKEN), ("a made-up token", "f" * 64)):
        status, _ = http("POST", "/api/job/result", token, b'{"status":"done"}')
        check(f"the job API refuses {what}: 401", status == 401, f"got {status}")
    check("the job API refuses a start without a token: 401", http("POST", "/api/job/start", None, b"{}")[0] == 401)

    ids = {}
    r = wbrun("baseline")
    ids[BASELINE] = int(re.search(r"submission (\d+)", r.stdout).group(1))
    r = wbrun("baseline", "--reference", "--per-device")
    check("the per-device reference is queued", r.returncode == 0, r.stdout + r.stderr)
    ids[REFERENCE] = int(re.search(r"submission (\d+)", r.stdout).group(1))
    ada = open(os.path.join(src, "contest", "examples", "ada.cl")).read()
    grace = open(os.path.join(src, "contest", "examples", "grace.cl")).read()
    store = "if (row < N && col < N) C[row * N + col] = sum;"
    check("ada.cl has the line the cheat changes", store in ada)
    # Right at the public sizes only: the secret sizes catch it, on each device.
    cheat = ada.replace(store, "if (row < N && col < N) C[row * N + col] = "
                               "(N == 1 || N == 17 || N == 100 || N == 257) ? sum : 0.0f;")
    ids["ada"] = upload("ada", ada)
    ids["grace"] = upload("grace", grace)
    ids["mallory"] = upload("mallory", cheat)
    # The per-device reference's placeholder text, uploaded by a student: judged as the text it is.
    ids["posing"] = upload("posing", "// contest: the reference kernel, chosen on the judging device\n")

    # A Slurm job killed mid-run: ada's, once it says it is running.
    running = wait_for("ada's Slurm job starts running",
                       lambda: (lambda d: d if d["state"] == "running" else None)(state(submissions(), ids["ada"], SLURM)),
                       240)
    if running:
        killed_job = running["job_id"]
        subprocess.run(["scancel", killed_job], env=env, check=False)
        failed = wait_for("the killed job's judging fails",
                          lambda: (lambda d: d if d["state"] in ("failed", "done", "rejected") else None)(
                              state(submissions(), ids["ada"], SLURM)), 60)
        check("the killed job shows as failed, saying it was cancelled",
              failed is not None and failed["state"] == "failed" and "CANCELLED" in failed["reason"]
              and killed_job in failed["reason"], str(failed))
        dom = chromium_dom("")
        if dom is not None:
            badge = re.search(r'<span class="badge failed" data-device="PoCL via Slurm" data-state="failed" '
                              r'title="([^"]*)">PoCL via Slurm: failed \(job (\d+)\)</span>', dom)
            check("the page shows the failed judging with its job and reason",
                  badge is not None and "CANCELLED" in badge.group(1) and badge.group(2) == killed_job)

    def all_final():
        subs = submissions()
        return subs if all(state(subs, i, d)["state"] in ("done", "rejected", "failed")
                           for i in ids.values() for d in (LOCAL, SLURM)) else None

    wait_for("every judging ends", all_final, 420)
    r = wbrun("retry", str(ids["ada"]), "--device", SLURM)
    check("contest retry queues the failed judging again", r.returncode == 0 and "again" in r.stdout,
          r.stdout + r.stderr)
    subs = wait_for("every judging ends after the retry",
                    lambda: (lambda s: s if s and state(s, ids["ada"], SLURM)["state"] != "failed" else None)(all_final()),
                    300)
    subs = subs or submissions()

    # The states: every valid entry done on both devices, the cheat rejected on both.
    for alias in (BASELINE, REFERENCE, "ada", "grace"):
        for device in (LOCAL, SLURM):
            d = state(subs, ids[alias], device)
            check(f"{alias} is done on {device}", d["state"] == "done", str(d))
    # The public list says the kind; the instructor's database keeps the judge's words.
    with sqlite3.connect(db_path) as con_reasons:
        kept = dict(con_reasons.execute("SELECT device, reason FROM judgings WHERE submission_id = ?", (ids["mallory"],)))
    for device in (LOCAL, SLURM):
        d = state(subs, ids["mallory"], device)
        check(f"the cheat is rejected on {device} at a secret size",
              d["state"] == "rejected" and d["reason"] == "wrong values" and "wrong at N =" in kept.get(device, ""),
              f"{d} {kept.get(device)}")
    check("the cheat's submission is rejected", subs[ids["mallory"]]["status"] == "rejected", str(subs[ids["mallory"]]))
    for device in (LOCAL, SLURM):
        d = state(subs, ids["posing"], device)
        check(f"a student's copy of the reference placeholder is rejected on {device}, not judged as the reference",
              d["state"] == "rejected", str(d))

    # Every state transition, from the event log.
    con = sqlite3.connect(db_path)
    def events(sid, device):
        return con.execute("SELECT state, detail FROM judging_events WHERE submission_id = ? AND device = ? "
                           "ORDER BY id", (sid, device)).fetchall()
    for alias in (BASELINE, REFERENCE, "grace"):
        local = [s for s, _ in events(ids[alias], LOCAL)]
        check(f"{alias} here: queued, running, done", local == ["queued", "running", "done"], str(local))
        ev = events(ids[alias], SLURM)
        check(f"{alias} via Slurm: queued, submitted, running, done",
              [s for s, _ in ev] == ["queued", "submitted", "running", "done"], str(ev))
        check(f"{alias} via Slurm: the job id is recorded when submitted and when running",
              len(ev) == 4 and re.match(r"Slurm job \d+", ev[1][1]) and ev[1][1].split()[2] == ev[2][1].split()[2],
              str(ev))
    ev = events(ids["ada"], SLURM)
    states = [s for s, _ in ev]
    check("ada via Slurm: queued, submitted, running, failed, queued (retry), submitted, running, done",
          states == ["queued", "submitted", "running", "failed", "queued", "submitted", "running", "done"], str(ev))
    if len(ev) == 8:
        check("the retry ran as a new Slurm job", ev[1][1].split()[2] != ev[5][1].split()[2], str(ev))
        check("the retry says who retried it", "retried by the instructor" in ev[4][1], str(ev))
    mallory = [s for s, _ in events(ids["mallory"], SLURM)]
    check("the cheat via Slurm: queued, submitted, running, rejected",
          mallory == ["queued", "submitted", "running", "rejected"], str(mallory))

    # The boards: one per device in the zoo's order, the same entries, in agreement within noise.
    board = json.loads(http("GET", "/api/board")[1])
    names = [b["device"] for b in board["devices"]]
    check("one board per device, in the zoo's order", names == [LOCAL, SLURM], str(names))
    rows = {b["device"]: {r["alias"]: r for r in b["rows"]} for b in board["devices"]}
    for device in (LOCAL, SLURM):
        check(f"{device}: baseline, reference, ada and grace ranked; the cheat is not",
              sorted(rows.get(device, {})) == sorted([BASELINE, REFERENCE, "ada", "grace"]), str(rows.get(device)))
        hw = next((b["hardware"] for b in board["devices"] if b["device"] == device), "")
        check(f"{device}: the board names the hardware it ran on", "Portable Computing Language" in hw, hw)
    order = []  # the cross-device rows by rank, when both boards are whole
    if all(len(rows.get(d, {})) == 4 for d in (LOCAL, SLURM)):
        # How closely the two boards agree is a measurement, not a verdict: two judges of one
        # device, each timed beside whatever else the machine runs, drift apart by up to 2.1x here
        # under ctest -j2 (a run of this test, 2026-11-25). It is printed, and measured where it
        # can be alone (bench/results/zoo/); the checks below need only the entries' order, whose
        # gaps (5x and more) no such drift closes.
        for alias in (BASELINE, REFERENCE, "ada", "grace"):
            a, b = rows[LOCAL][alias], rows[SLURM][alias]
            print(f"info {alias}: ratio to the reference {a['ratio']:.3f} here, {b['ratio']:.3f} via Slurm "
                  f"({max(a['ratio'], b['ratio']) / max(min(a['ratio'], b['ratio']), 1e-12):.2f}x apart)", flush=True)
        for device in (LOCAL, SLURM):
            order = [r["alias"] for r in sorted(rows[device].values(), key=lambda r: -r["ratio"])]
            check(f"{device}: the reference above grace above the baseline (apart by 5x and more)",
                  order.index(REFERENCE) < order.index("grace") < order.index(BASELINE), str(order))
        check("the reference beats the naive kernel by far on both devices",
              all(rows[d][REFERENCE]["speedup"] > 5 for d in (LOCAL, SLURM)),
              str([rows[d][REFERENCE]["speedup"] for d in (LOCAL, SLURM)]))
        # The cross-device view: the geometric mean of each alias's x naive, ranked.
        cross = {c["alias"]: c for c in board["cross_device"]}
        check("the cross-device view has every ranked alias", sorted(cross) == sorted(rows[LOCAL]), str(sorted(cross)))
        for alias, c in cross.items():
            expected = math.sqrt(rows[LOCAL][alias]["speedup"] * rows[SLURM][alias]["speedup"])
            check(f"cross-device: {alias} at the geometric mean of its two x naive ({expected:.3f})",
                  abs(c["geomean"] - expected) < 1e-6 * expected and len(c["speedups"]) == 2, str(c))
        order = sorted(cross.values(), key=lambda c: c["rank"])
        check("cross-device: ranked by the mean, best first",
              [c["rank"] for c in order] == list(range(1, len(order) + 1)) and
              all(order[i]["geomean"] >= order[i + 1]["geomean"] for i in range(len(order) - 1)))

    # The page: a tab per device and the cross-device one, which ranks the same aliases.
    dom = chromium_dom("#cross")
    if dom is None:
        print("note: headless Chromium not found; the page's checks are skipped (apt-get install chromium)")
    else:
        tabs = re.findall(r'<button[^>]*data-tab="(\w+)"[^>]*>([^<]*)</button>', dom)
        check("the page has a tab per device and an Across devices tab",
              tabs == [("device", LOCAL), ("device", SLURM), ("cross", "Across devices")], str(tabs))
        shown = re.findall(r'<td class="alias" title="[^"]*">([^<]*)</td>', dom)
        check("the Across devices tab ranks the aliases as the API does",
              [a.replace("&#39;", "'") for a in shown] == [c["alias"] for c in order], str(shown))

    # The CLI's view of the same.
    r = wbrun("status")
    check("contest status shows each device's state and job", re.search(rf"{SLURM}\s+done\s+job \d+", r.stdout)
          is not None, r.stdout)
    r = wbrun("board")
    check("contest board shows the cross-device ranking", "Across devices" in r.stdout, r.stdout)
    leftovers = [os.path.join(d, f) for d, _, fs in os.walk(db_path + ".jobs") for f in fs if f == "token"]
    check("no job token file is left", leftovers == [], str(leftovers))

    # A board judged elsewhere (a machine the server cannot reach, such as a lent GPU): the same
    # entries judged by `contest judge` into a database of their own, then merged as a third board.
    other = os.path.join(scratch, "elsewhere.db")
    def in_other(*args):
        return subprocess.run([wb, "contest", "--db", other, *args], capture_output=True, text=True, env=env,
                              timeout=300)
    in_other("baseline")
    in_other("baseline", "--reference", "--per-device")
    for alias, text in (("ada", ada), ("grace", grace), ("mallory", cheat)):
        path = os.path.join(scratch, f"{alias}.cl")
        open(path, "w").write(text)
        in_other("submit", path, "--alias", alias, "--interval", "0")
    # At this contest's N and launches (the server's: --n 512, the default repeats), which a merge
    # checks every run against.
    r = in_other("judge", "--n", "512", "--sittings", "1", "--no-race-check")
    check("the entries are judged elsewhere", r.returncode == 0 and "5 submission(s) judged" in r.stdout,
          r.stdout + r.stderr)
    # As if judged weeks ago there: a merged run keeps the time it was judged at, not the merge's.
    with sqlite3.connect(other) as o:
        o.execute("UPDATE runs SET finished_at = '2026-01-02T03:04:05'")
    r = wbrun("merge", other, "--board", "PoCL elsewhere", "--n", "512")
    check("contest merge brings the five judgings in as a board", r.returncode == 0 and "5 judging(s) merged" in r.stdout,
          r.stdout + r.stderr)
    r = wbrun("merge", other, "--board", "PoCL elsewhere", "--n", "512")
    check("merging twice changes nothing", "0 judging(s) merged" in r.stdout and "5 already there" in r.stdout, r.stdout)
    board = json.loads(http("GET", "/api/board")[1])
    names = [b["device"] for b in board["devices"]]
    check("the merged board follows the zoo's", names == [LOCAL, SLURM, "PoCL elsewhere"], str(names))
    merged = next((b for b in board["devices"] if b["device"] == "PoCL elsewhere"), {"rows": []})
    check("the merged board ranks the four valid entries, not the cheat",
          sorted(r["alias"] for r in merged["rows"]) == sorted([BASELINE, REFERENCE, "ada", "grace"]), str(merged))
    check("a merged run keeps the time it was judged at", merged["rows"] != [] and
          all(r["when"] == "2026-01-02T03:04:05" for r in merged["rows"]), str(merged["rows"]))
    check("across devices now spans three boards",
          all(len(c["speedups"]) == 3 for c in board["cross_device"]) and len(board["cross_device"]) == 4,
          str(board["cross_device"]))
    check("the cheat shows as rejected on the merged board",
          state(submissions(), ids["mallory"], "PoCL elsewhere")["state"] == "rejected")
    # A run altered after the fact does not add up, and is refused.
    tampered = os.path.join(scratch, "tampered.db")
    shutil.copy(other, tampered)
    with sqlite3.connect(tampered) as t:
        t.execute("UPDATE runs SET gflops = gflops * 10 WHERE submission_id = (SELECT id FROM submissions "
                  "WHERE alias = 'grace')")
    r = wbrun("merge", tampered, "--board", "Tampered", "--n", "512")
    check("a tampered run is refused, and merge says so", r.returncode != 0 and "does not follow" in r.stderr,
          r.stdout + r.stderr)
    # A forgery that adds up: grace's run restated at N = 64 (sizes, GFLOPS and all consistent), so
    # its 512-sized time reads as a fast small launch; and a device name carrying a terminal escape.
    # The merge checks the run against this contest's N, not the row's own, and shows no raw byte.
    forged = os.path.join(scratch, "forged.db")
    shutil.copy(other, forged)
    with sqlite3.connect(forged) as f:
        f.execute("UPDATE runs SET n = 64, sizes = sizes || ',64', gflops = 2.0 * 64 * 64 * 64 / median_s / 1e9 "
                  "WHERE submission_id = (SELECT id FROM submissions WHERE alias = 'grace')")
        f.execute("UPDATE devices SET name = name || char(27) || ']0;pwned' || char(7)")
    r = wbrun("merge", forged, "--board", "Forged", "--n", "512")
    check("a run restated at another N is refused against this contest's N",
          r.returncode != 0 and "not at the contest's N = 512" in r.stderr, r.stdout + r.stderr)
    r = wbrun("board")
    check("no raw escape byte of a merged device name reaches contest board",
          "\x1b" not in r.stdout.replace("\x1b[1m", "").replace("\x1b[0m", "") and "pwned" in r.stdout,
          repr(r.stdout[-600:]))

    # A job that never reports: its server address answers nothing (a socket that accepts and stays
    # silent), so the job waits; past the device's result_timeout_s the server cancels it.
    import socket
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    server.terminate()
    server.wait(timeout=30)
    quiet_db = os.path.join(scratch, "quiet.db")
    quiet_zoo = os.path.join(scratch, "quiet.toml")
    with open(quiet_zoo, "w") as f:
        f.write(f'[slurm]\nserver = "http://127.0.0.1:{silent.getsockname()[1]}"\n\n'
                f'[[device]]\nname = "silent"\nreach = "slurm"\nresult_timeout_s = 10\n')
    log2 = open(os.path.join(scratch, "serve-quiet.log"), "w")
    server = subprocess.Popen([wb, "contest", "--db", quiet_db, "serve", "--port", "0", "--token", TOKEN,
                               "--devices", quiet_zoo, "--n", "256"], stdout=log2, stderr=subprocess.STDOUT, env=env,
                              cwd=scratch)
    # Once the server has made its database (a loaded machine starts it slowly): then the baseline,
    # whose failure is said rather than waited for.
    wait_for("the quiet server starts", lambda: "contest board:" in open(log2.name).read(), 120)
    r = subprocess.run([wb, "contest", "--db", quiet_db, "baseline"], capture_output=True, text=True, env=env,
                       timeout=120)
    check("the baseline is queued on the quiet server", r.returncode == 0, r.stdout + r.stderr)
    def quiet_state():
        con2 = sqlite3.connect(quiet_db)
        try:
            row = con2.execute("SELECT state, reason, job_id FROM judgings").fetchone()
        except sqlite3.OperationalError:
            row = None
        con2.close()
        return row if row and row[0] == "failed" else None
    row = wait_for("the silent job's judging fails", quiet_state, 90)
    check("a job silent past result_timeout_s is cancelled and shown as failed",
          row is not None and "no result from Slurm job" in row[1] and "within 10 s" in row[1] and "cancelled" in row[1],
          str(row))
    if row:
        alive = subprocess.run(["squeue", "--noheader", "--jobs", row[2], "--format=%T"], env=env, capture_output=True,
                               text=True).stdout.strip()
        check("its Slurm job is cancelled", alive in ("", "CANCELLED", "COMPLETING"), alive)
    silent.close()
finally:
    cleanup()

print(f"{len(failures)} failure(s)" if failures else "zoo: every check holds")
sys.exit(1 if failures else 0)
