"""The lab dashboard end to end: a class of five against a real `workbook contest serve --lab`.

  lab_test.py WORKBOOK SCRATCH_WORKBOOK OUT_DIR CHROMIUM|-

WORKBOOK is the main build's command (the server), SCRATCH_WORKBOOK the scratch course's wrapper
(the students' checks: exercises 01-03 built; env WORKBOOK_SCRATCH and WORKBOOK_SOURCE as the other
CLI tests). Students: ana and ben check with the real CLI (ana fails 02's starter, then passes;
ben checks while the server is down, and his reports arrive once it is back); cy is stuck on 03
(checks from 25 minutes ago, delivered late as a queued report would be), dee works on 03, eve
passed 01 and 02 and meets a race on 03; they three post as the CLI would. Then: the instructor's
grid and the room's counts (JSON and in Chromium: the stuck marker, the failure kinds, no names on
the room's page, the next load showing a new check), the refusals (no token, a student's token on
the instructor's routes, an oversized body, a field outside the vocabulary, code in a report, a
flood), and the check's time not joined, joined with the server down and joined with a server that
never answers, side by side. Prints ok/FAIL lines; exit 1 on any failure.
"""
import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

failures = 0


def check(what, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + what + ("" if ok or not detail else "\n     " + detail[:3000]), flush=True)
    failures += 0 if ok else 1
    return ok


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http(port, path, token=None, body=None, method=None):
    """(status, parsed JSON or text, headers)."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, text, headers = r.status, r.read().decode(), r.headers
    except urllib.error.HTTPError as e:
        status, text, headers = e.code, e.read().decode(), e.headers
    try:
        return status, json.loads(text) if text else None, headers
    except ValueError:
        return status, text, headers


def utc(minutes_ago=0):
    t = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=minutes_ago)
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def report(port, token, exercise, passed, failure="", minutes_ago=0, seconds=60, hints=0):
    body = {"exercise": exercise, "passed": passed, "failure": failure, "seconds_on_exercise": seconds,
            "hints_used": hints, "checked_at": utc(minutes_ago)}
    return http(port, "/api/lab/check", token, json.dumps(body).encode())[0]


class Server:
    def __init__(self, workbook, out, port, roster):
        self.args = [workbook, "contest", "--db", os.path.join(out, "class.db"), "serve", "--roster", roster, "--lab",
                     "--port", str(port), "--stuck-after", "10", "--no-race-check", "--no-sandbox"]
        self.log = os.path.join(out, "server.log")
        self.port = port
        self.proc = None

    def start(self):
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(self.args, stdout=log, stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                time.sleep(0.3)  # the one listening is this server, not one it could not replace
                return self.proc.poll() is None
            except OSError:
                if self.proc.poll() is not None:
                    return False
                time.sleep(0.1)
        return False

    def tokens(self):
        """The roster's tokens the first start issued, by student id."""
        lines = open(os.path.join(os.path.dirname(self.log), "roster-tokens.csv")).read().splitlines()[1:]
        return {line.split(",")[0]: line.split(",")[2] for line in lines}

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(15)


class Student:
    """The scratch workbook as one student's laptop (they take turns on it)."""

    def __init__(self, wb, scratch, source):
        self.wb, self.scratch, self.source = wb, scratch, source

    def fresh(self):
        shutil.rmtree(os.path.join(self.scratch, ".workbook"), ignore_errors=True)
        for d in ("01_device_info", "02_vadd", "03_vadd_chain"):
            shutil.copytree(os.path.join(self.source, "exercises", d), os.path.join(self.scratch, "exercises", d),
                            dirs_exist_ok=True, copy_function=shutil.copy)  # new times: the build sees the change

    def solve(self, d):
        shutil.copytree(os.path.join(self.source, "solutions", d), os.path.join(self.scratch, "exercises", d),
                        dirs_exist_ok=True, copy_function=shutil.copy)

    def run(self, *args, env=None):
        e = dict(os.environ)
        e.pop("WORKBOOK_CONTEST_TOKEN", None)
        e.update(env or {})
        start = time.monotonic()
        r = subprocess.run([self.wb, *args], capture_output=True, text=True, timeout=300, env=e, stdin=subprocess.DEVNULL)
        return r.returncode, r.stdout + r.stderr, time.monotonic() - start

    def outbox(self):
        d = os.path.join(self.scratch, ".workbook", "lab-outbox")
        return sorted(f for f in os.listdir(d) if f.endswith(".json") and not f.startswith(".")) if os.path.isdir(d) else []


def wait_for(what, predicate, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.5)
    return False


class Relay:
    """Passes the page and its polls to the lab server on `port`; after answering the first poll of
    /api/lab it calls `between` (a change on the server), so a later poll sees it."""

    def __init__(self, port, between):
        relay = self
        self.polls, self.first = 0, ""

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                req = urllib.request.Request(f"http://127.0.0.1:{port}{self.path}")
                if self.headers.get("Authorization"):
                    req.add_header("Authorization", self.headers["Authorization"])
                try:
                    with urllib.request.urlopen(req, timeout=10) as r:
                        status, body, headers = r.status, r.read(), r.headers
                except urllib.error.HTTPError as e:
                    status, body, headers = e.code, e.read(), e.headers
                self.send_response(status)
                for h in ("Content-Type", "Content-Security-Policy", "Cache-Control"):
                    if headers.get(h):
                        self.send_header(h, headers[h])
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
                if self.path.startswith("/api/lab") and status == 200:
                    relay.polls += 1
                    if relay.polls == 1:
                        relay.first = json.dumps(json.loads(body))
                        between()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


def browse(chromium, out, url, name, screenshot=False):
    profile = os.path.join(out, "chromium-profile")
    args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile,
            "--virtual-time-budget=5000"]
    if screenshot:
        png = os.path.join(out, name + ".png")
        subprocess.run(args + ["--window-size=1100,560", "--screenshot=" + png, url], capture_output=True, timeout=60)
        return png
    r = subprocess.run(args + ["--dump-dom", url], capture_output=True, text=True, timeout=60)
    return r.stdout


def a_class(workbook, wb, out, roster_lines):
    """A fresh OUT with the roster, a lab server (not started) on a free port, and the scratch
    workbook as the students' laptop (env WORKBOOK_SCRATCH, WORKBOOK_SOURCE): (server, student, port)."""
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    roster = os.path.join(out, "roster.csv")
    with open(roster, "w") as f:
        f.write(roster_lines)
    port = free_port()
    student = Student(wb, os.environ["WORKBOOK_SCRATCH"], os.environ["WORKBOOK_SOURCE"])
    return Server(workbook, out, port, roster), student, port


def main():
    workbook, wb, out, chromium = sys.argv[1:5]
    scratch = os.environ["WORKBOOK_SCRATCH"]
    server, student, port = a_class(workbook, wb, out, "ana,Ana Lee\nben,Ben Okafor\ncy,Cy Park\ndee,Dee Novak\neve,Eve Sato\n")
    try:
        if not check("the lab server starts", server.start(), open(server.log).read()):
            return 1
        tokens = server.tokens()
        instructor = open(os.path.join(out, "class.db.instructor-token")).read().strip()
        check("the instructor's token file is private", os.stat(os.path.join(out, "class.db.instructor-token")).st_mode & 0o077 == 0)

        # --- ana: the real CLI, joined -------------------------------------------------------------
        student.fresh()
        code, text, _ = student.run("progress")
        check("progress says checks are not reported before joining", "not reported to a class" in text, text)
        code, text, _ = student.run("join", f"http://127.0.0.1:{port}", "--token", "0" * 64)
        check("join with an unknown token is refused, naming it", code == 2 and "unknown token" in text, text)
        check("and nothing is stored", not os.path.exists(os.path.join(scratch, ".workbook", "class.toml")))
        code, text, _ = student.run("join", "10.0.0.1:8080", "--token", tokens["ana"])
        check("join with an address without http:// says how to write it", code == 2 and "http://" in text, text)
        code, text, _ = student.run("join", f"http://127.0.0.1:{port}", env={"WORKBOOK_CONTEST_TOKEN": tokens["ana"]})
        check("ana joins with her token (from WORKBOOK_CONTEST_TOKEN)", code == 0 and "Ana Lee" in text, text)
        class_toml = os.path.join(scratch, ".workbook", "class.toml")
        check("the class file holding her token is private", os.stat(class_toml).st_mode & 0o077 == 0)
        code, text, _ = student.run("contest", "status", "--server", f"http://127.0.0.1:{port}")
        check("contest status --server uses the token join stored", code == 0, text)
        code, text, _ = student.run("check", "02")
        check("ana's starter of 02 fails as before", code == 1 and "FAIL 02" in text, text)
        student.solve("02_vadd")
        code, text, _ = student.run("check", "02")
        check("ana's solution of 02 passes", code == 0 and "PASS 02" in text, text)
        check("ana's reports are all delivered", wait_for("ana", lambda: not student.outbox(), 30), str(student.outbox()))
        code, text, _ = student.run("progress")
        check("progress says where checks go, all sent", f"reported to http://127.0.0.1:{port} as Ana Lee: all sent" in text, text)
        code, text, _ = student.run("leave")
        check("ana leaves", code == 0 and "no longer reported" in text and not os.path.exists(class_toml), text)
        code, text, _ = student.run("contest", "status", "--server", f"http://127.0.0.1:{port}")
        check("after leaving, contest status --server has no token: refused", code == 1 and "401" in text, text)

        # --- cy, dee, eve: reports as the CLI posts them ---------------------------------------------
        check("cy: a failing check 25 minutes ago (queued, delivered late)",
              report(port, tokens["cy"], "03", False, "wrong_values", minutes_ago=25, seconds=60) == 204)
        check("cy: failing still", report(port, tokens["cy"], "03", False, "build_error", seconds=1500, hints=2) == 204)
        check("dee: working on 03", report(port, tokens["dee"], "03", False, "wrong_values", seconds=120) == 204)
        for ex in ("01", "02"):
            report(port, tokens["eve"], ex, False, "build_error", minutes_ago=5)
            check(f"eve passes {ex}", report(port, tokens["eve"], ex, True, minutes_ago=3) == 204)
        check("eve meets a race on 03", report(port, tokens["eve"], "03", False, "race") == 204)

        # --- the refusals: nothing stored -------------------------------------------------------------
        def grid():
            return http(port, "/api/lab", instructor)[1]

        before = json.dumps(grid()["students"], sort_keys=True)
        good = json.dumps({"exercise": "03", "passed": False, "failure": "race", "seconds_on_exercise": 1,
                           "hints_used": 0, "checked_at": utc()})
        status, body, _ = http(port, "/api/lab/check", None, good.encode())
        check("a report without a token: 401", status == 401, str(body))
        status, body, _ = http(port, "/api/lab/check", "f" * 64, good.encode())
        check("a report with a made-up token: 401", status == 401, str(body))
        big = json.dumps({"exercise": "03", "passed": False, "failure": "race", "seconds_on_exercise": 1,
                          "hints_used": 0, "checked_at": utc(), "pad": "x" * 5000})
        status, body, _ = http(port, "/api/lab/check", tokens["dee"], big.encode())
        check("an oversized report: 413", status == 413, str(body))
        status, body, _ = http(port, "/api/lab/check", tokens["dee"], good.replace('"race"', '"segfault lol"').encode())
        check("a failure kind outside the vocabulary: 400, naming the list",
              status == 400 and "wrong_values" in body.get("error", ""), str(body))
        with_code = json.loads(good)
        with_code["code"] = "__kernel void k() {}"
        status, body, _ = http(port, "/api/lab/check", tokens["dee"], json.dumps(with_code).encode())
        check("a report carrying code: 400 (unknown field)", status == 400 and "code" in body.get("error", ""), str(body))
        status, body, _ = http(port, "/api/lab/check", tokens["dee"], good.replace('"03"', '"99"').encode())
        check("an exercise the course does not have: 400", status == 400, str(body))
        status, body, _ = http(port, "/api/lab/check", tokens["dee"], b"{not json")
        check("a body that is not JSON: 400", status == 400, str(body))
        status, body, _ = http(port, "/api/lab", tokens["dee"])
        check("a student's token cannot read the instructor's grid: 401", status == 401, str(body))
        status, body, _ = http(port, "/api/lab")
        check("no token cannot read it either: 401", status == 401, str(body))
        check("the refused reports stored nothing", json.dumps(grid()["students"], sort_keys=True) == before)
        flood = [report(port, tokens["dee"], "03", False, "wrong_values") for _ in range(40)]
        taken = flood.count(204)
        check(f"a flood of 40 reports: {taken} taken, the rest 429", 10 <= taken <= 25 and flood.count(429) == 40 - taken,
              str(flood))
        _, _, headers = http(port, "/api/lab/check", tokens["dee"], good.encode())
        check("a refused one says when to retry (Retry-After)", headers.get("Retry-After") is not None)
        status, _, _ = http(port, "/api/board")
        check("the server keeps serving its board", status == 200)

        # --- ben: offline; his checks wait and arrive later ------------------------------------------------
        student.fresh()
        code, text, _ = student.run("join", f"http://127.0.0.1:{port}", "--token", tokens["ben"])
        check("ben joins", code == 0, text)
        server.stop()
        code, text, t_down = student.run("check", "02")
        check("with the server down, ben's check works as usual (fails: the starter)", code == 1 and "FAIL 02" in text, text)
        check("his report waits in the outbox", len(student.outbox()) == 1, str(student.outbox()))
        wait_for("the sender notes the failure", lambda: os.path.exists(os.path.join(scratch, ".workbook", "lab-status.toml")), 10)
        code, text, _ = student.run("progress")
        check("progress says one is waiting and why", "1 waiting to be sent" in text and "cannot reach" in text, text)
        check("the server comes back", server.start())
        with open(os.path.join(scratch, "exercises", "01_device_info", "device_info.cpp"), "a") as f:
            f.write("\nint planted_error = ;\n")  # ben's next edit does not compile
        code, text, _ = student.run("check", "01")
        check("ben's next check works (a build error)", code == 1 and "does not compile" in text, text)
        check("both of ben's reports arrive (the sender retries)", wait_for("ben", lambda: not student.outbox(), 90),
              str(student.outbox()))
        g = grid()
        ben = next(s for s in g["students"] if s["id"] == "ben")
        check("ben's grid row has both checks", "02" in ben["cells"] and "01" in ben["cells"], json.dumps(ben))
        check("each with its kind: wrong values (02), build error (01)",
              ben["cells"]["02"]["last_failure"] == "wrong_values" and ben["cells"]["01"]["last_failure"] == "build_error",
              json.dumps(ben))

        # --- latency: not joined, joined with the server down, joined with a server that never answers --------
        code, text, _ = student.run("leave")
        student.fresh()
        times = {}
        student.run("check", "02")  # builds the restored starter: the three timed checks below build nothing
        code, text, times["not joined"] = student.run("check", "02")
        student.run("join", f"http://127.0.0.1:{port}", "--token", tokens["ben"])
        server.stop()
        code, text, times["joined, server down"] = student.run("check", "02")
        # A server that accepts and never answers.
        silent = socket.socket()
        silent.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        silent.bind(("127.0.0.1", port))
        silent.listen(8)
        held = []

        def accept():
            silent.settimeout(30)
            try:
                while True:
                    held.append(silent.accept()[0])
            except OSError:
                pass

        t = threading.Thread(target=accept, daemon=True)
        t.start()
        code, text, times["joined, server silent"] = student.run("check", "02")
        check("with a server that never answers, the check works as usual", code == 1 and "FAIL 02" in text, text)
        waited = wait_for("the sender connects", lambda: len(held) > 0, 15)
        open_conn = False
        if held:
            held[0].setblocking(False)
            try:
                open_conn = held[0].recv(1, socket.MSG_PEEK) != b""
            except BlockingIOError:
                open_conn = True
        check("the check returned while its report's request still waits for an answer", waited and open_conn)
        print("check of 02 (starter), seconds:  " + "   ".join(f"{k}: {v:.2f}" for k, v in times.items()))
        check("joined, a check is not slower by a network timeout (10 s)",
              max(times["joined, server down"], times["joined, server silent"]) < times["not joined"] + 5, str(times))
        silent.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread, so the port is free again
        silent.close()
        t.join(5)
        for c in held:
            c.close()
        student.run("leave")
        check("the server comes back once more", server.start())

        # --- the grid and the room ---------------------------------------------------------------------
        g = grid()
        cells = {s["id"]: s["cells"] for s in g["students"]}
        check("five students on the grid", sorted(cells) == ["ana", "ben", "cy", "dee", "eve"], str(sorted(cells)))
        check("ana passed 02", cells["ana"].get("02", {}).get("state") == "passed", json.dumps(cells["ana"]))
        check("cy is stuck on 03 (25 min, over the 10)", cells["cy"]["03"]["state"] == "stuck", json.dumps(cells["cy"]))
        check("cy's row keeps the latest failure kind and hints", cells["cy"]["03"]["last_failure"] == "build_error"
              and cells["cy"]["03"]["hints"] == 2, json.dumps(cells["cy"]))
        check("dee is working on 03", cells["dee"]["03"]["state"] == "working", json.dumps(cells["dee"]))
        check("dee's flood is one row", cells["dee"]["03"]["checks"] == 1 + taken, json.dumps(cells["dee"]))
        check("eve passed 01 and 02", cells["eve"]["01"]["state"] == "passed" and cells["eve"]["02"]["state"] == "passed")
        ex03 = next(x for x in g["per_exercise"] if x["id"] == "03")
        kinds = [k["kind"] for k in ex03["failures"]]
        check("03's failure kinds, most common first: wrong values (by 2 students)", kinds[:1] == ["wrong_values"]
              and set(kinds) == {"wrong_values", "build_error", "race"}, json.dumps(ex03))
        check("03 counts: 1 stuck, 2 working", ex03["stuck"] == 1 and ex03["working"] == 2, json.dumps(ex03))
        status, room, _ = http(port, "/api/lab/room")
        text = json.dumps(room)
        names = ["Ana Lee", "Ben Okafor", "Cy Park", "Dee Novak", "Eve Sato"]
        ids = ['"ana"', '"ben"', '"cy"', '"dee"', '"eve"']
        check("the room's counts hold no name, alias or id",
              status == 200 and not any(n in text for n in names + ids), text)

        if chromium == "-":
            print("SKIP the pages in Chromium: not installed (apt-get install chromium)")
        else:
            url = f"http://127.0.0.1:{port}"
            dom = browse(chromium, out, f"{url}/lab#{instructor}", "grid")
            check("the instructor's page shows the grid with names", 'id="grid"' in dom and "Cy Park" in dom, dom[-2000:])
            row = dom[dom.find('data-student="cy"'):]
            row = row[:row.find("</tr>")]
            check("cy's 03 cell carries the stuck marker", 'class="cell stuck" data-exercise="03"' in row and "stuck 25m" in row,
                  row)
            item = dom[dom.find('<li data-exercise="03">'):]
            item = item[:item.find("</li>")]
            check("03's failure kinds are under the grid, most common first",
                  "wrong values ×2, build error ×1, race ×1" in item, dom[-2000:])
            dom = browse(chromium, out, f"{url}/lab#wrong", "grid-wrong")
            check("with a wrong token the page shows the refusal, no grid", 'id="grid"' not in dom
                  and "instructor's token" in dom, dom[-1500:])
            dom = browse(chromium, out, f"{url}/room", "room")
            check("the room's page shows the counts", 'id="room"' in dom and 'data-exercise="03"' in dom, dom[-2000:])
            check("the room's page shows no name", not any(n in dom for n in names), dom[-2000:])
            # Live: one page load, through a relay that lets dee pass right after the page's first
            # poll was answered; the page's next poll must show it without a reload.
            relay = Relay(port, lambda: report(port, tokens["dee"], "03", True, seconds=400))
            dom = browse(chromium, out, f"http://127.0.0.1:{relay.port}/lab#{instructor}", "grid-live")
            relay.stop()
            row = dom[dom.find('data-student="dee"'):]
            row = row[:row.find("</tr>")]
            check("the page polled again by itself", relay.polls >= 2, str(relay.polls))
            check("its first answer had dee working on 03", '"03": {"checks"' in relay.first and
                  json.loads(relay.first)["students"][3]["cells"]["03"]["state"] == "working", relay.first[:500])
            check("dee's pass shows in the same page, live", 'class="cell passed" data-exercise="03"' in row, row)
            for name, path in (("lab-grid", f"/lab#{instructor}"), ("lab-room", "/room")):
                png = browse(chromium, out, url + path, name, screenshot=True)
                check(f"a screenshot of {path.split('#')[0]} ({png})", os.path.getsize(png) > 1000)
    finally:
        server.stop()
        student.fresh()
    print("all ok" if failures == 0 else f"{failures} FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
