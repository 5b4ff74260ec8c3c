"""Remote checks end to end: `workbook check NN --remote` against `contest serve --remote-checks`.

  remote_test.py WORKBOOK SCRATCH_WORKBOOK OUT_DIR

As tests/cli/lab_test.py (env WORKBOOK_SCRATCH, WORKBOOK_SOURCE): the server grades with `workbook
grade` on this machine's device, in its sandbox and with its race pass where bubblewrap and Oclgrind
are installed. Checked: a starter fails remotely with the messages a local check gives (numbers
aside: the server draws its own inputs); solutions of 02 and of 03 (host code) pass, naming the
device; a host file that tries to read the server's database, the students' tokens and the
instructor's token finds none of them, and nothing of them comes back; the refusals (an exercise not
offered, a file that is not the exercise's, an oversized upload, no token, another student's check,
a second check too soon), the server still serving; a judging holding the device makes checks wait,
and two waiting checks of one exercise are then graded together. Prints ok/FAIL lines; exit 1 on
any failure.
"""
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_test import a_class, check, http  # noqa: E402
import lab_test  # noqa: E402


def problems(text):
    """The messages of a check's output, numbers and seeds made alike."""
    out = []
    for line in text.splitlines():
        if " differ; first at index" in line or "does not compile" in line:
            line = re.sub(r"WORKBOOK_SEED=\S+\)", "WORKBOOK_SEED=S)", line)
            out.append(re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", line.strip()))
    return out


def multipart(fields):
    boundary = "----remote-test-boundary"
    body = b""
    for name, content in fields:
        body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{name}\"\r\n"
                 "Content-Type: text/plain\r\n\r\n").encode() + content + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return body, "multipart/form-data; boundary=" + boundary


def post_check(port, token, fields):
    body, kind = multipart(fields)
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/check", data=body, method="POST")
    req.add_header("Content-Type", kind)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, json.loads(r.read().decode())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode() or "{}")


def main():
    workbook, wb, out = sys.argv[1:4]
    source = os.environ["WORKBOOK_SOURCE"]
    server, student, port = a_class(workbook, wb, out, "ana,Ana Lee\nben,Ben Okafor\n")
    sandbox = shutil.which("bwrap") is not None
    race = shutil.which("oclgrind") is not None
    # No lab dashboard here (cli.lab has one): joining is for the remote checks alone.
    server.args = server.args[:server.args.index("--lab")] + ["--port", str(port)]
    server.args += ["--remote-checks", "02", "03", "05", "--remote-interval", "1", "--remote-batch", "2"]
    server.args += [] if sandbox else ["--no-sandbox"]
    server.args += [] if race else ["--no-race-check"]
    print(f"grading on the server: sandbox {'on' if sandbox else 'OFF (no bwrap)'}, race pass {'on' if race else 'off'}")
    try:
        if not check("the server starts with remote checks", server.start(), open(server.log).read()):
            return 1
        tokens = server.tokens()
        student.fresh()
        code, text, _ = student.run("check", "02", "--remote")
        check("before joining, --remote says to join first", code == 2 and "workbook join" in text, text)
        code, text, _ = student.run("join", f"http://127.0.0.1:{port}", "--token", tokens["ana"])
        check("join says the server keeps no lab and which exercises it checks",
              code == 0 and "not reported" in text and "02 03 05" in text, text)

        code, local, _ = student.run("check", "02")
        code_r, remote, _ = student.run("check", "02", "--remote")
        check("the starter of 02 fails remotely as locally", code == 1 and code_r == 1 and "FAIL 02" in remote, remote)
        check("with the same messages (the server's own inputs aside)",
              problems(local) and problems(local) == problems(remote), f"local:\n{local}\nremote:\n{remote}")
        check("the remote result names the device it ran on", "remote check on Portable Computing Language" in remote
              or "remote check on " in remote, remote)
        check("the server's seed stays secret", "WORKBOOK_SEED=(secret)" in remote, remote)

        student.solve("02_vadd")
        code, local, _ = student.run("check", "02")
        code_r, text, _ = student.run("check", "02", "--remote")
        check("the solution of 02 passes remotely, as locally", code == 0 and code_r == 0 and "PASS 02" in text
              and "PASS 02" in local, text)
        student.solve("03_vadd_chain")
        time.sleep(1.1)
        code, text, _ = student.run("check", "03", "--remote")
        check("the solution of 03 (host code) passes remotely", code == 0 and "PASS 03" in text, text)
        student.run("go", "03")
        time.sleep(1.1)
        code, text, _ = student.run("watch", "--remote")
        check("watch --remote (no terminal: one check) checks the current exercise on the server",
              code == 0 and "PASS 03" in text and "remote check on" in text, text)
        code, text, _ = student.run("progress")
        check("progress says checks are not reported, and names the remote ones",
              "not reported" in text and "Remote checks (02 03 05)" in text, text)
        check("and no report waits to be sent", student.outbox() == [], str(student.outbox()))
        code, text, _ = student.run("list")
        check("remote passes count in the progress", text.count("done") >= 2, text)
        code, text, _ = student.run("check", "01", "--remote")
        check("an exercise the server does not offer: refused, naming those it does",
              code == 2 and "02, 03, 05" in text and "403" in text, text)

        # A host file that looks for the server's secrets while its test runs.
        secrets = [os.path.join(out, "class.db"), os.path.join(out, "roster-tokens.csv"),
                   os.path.join(out, "class.db.instructor-token")]
        snoop = open(os.path.join(source, "solutions", "02_vadd", "vadd_host.cpp")).read()
        # It aborts when it reads one: the check then fails, whatever the grader shows of its output.
        snoop += "\n#include <cstdio>\n#include <cstdlib>\nnamespace {\nstruct Snoop {\n  Snoop() {\n"
        for path in secrets:
            snoop += (f'    if (FILE* f = std::fopen("{path}", "rb")) {{ char b[200] = {{}}; std::fread(b, 1, 199, f);'
                      f' std::printf("LEAK: %s\\n", b); std::fprintf(stderr, "LEAK: %s\\n", b); std::abort(); }}\n')
        snoop += "  }\n} snoop;\n}  // namespace\n"
        with open(os.path.join(student.scratch, "exercises", "02_vadd", "vadd_host.cpp"), "w") as f:
            f.write(snoop)
        time.sleep(1.1)
        code, text, _ = student.run("--verbose", "check", "02", "--remote")
        leaked = [t for t in tokens.values() if t in text] + (["LEAK"] if "LEAK:" in text else [])
        if sandbox:
            check("the snooping host file finds none of the server's files (it passes)",
                  code == 0 and "PASS 02" in text and not leaked, text[-3000:])
        else:
            print("SKIP the snooping host file: no bubblewrap here, the grader runs without its sandbox")
        status, _, _ = http(port, "/api/board")
        check("the server keeps serving", status == 200)

        # Refusals over HTTP.
        kernel = open(os.path.join(source, "solutions", "02_vadd", "vadd.cl"), "rb").read()
        host = open(os.path.join(source, "solutions", "02_vadd", "vadd_host.cpp"), "rb").read()
        fields = [("exercise", b"02"), ("vadd.cl", kernel), ("vadd_host.cpp", host)]
        status, body = post_check(port, None, fields)
        check("no token: 401", status == 401, str(body))
        status, body = post_check(port, tokens["ben"], fields + [("../../class.db", b"x")])
        check("a field that is not one of the exercise's files: 400", status == 400, str(body))
        status, body = post_check(port, tokens["ben"], [("exercise", b"02"), ("vadd.cl", kernel)])
        check("a file missing: 400, naming it", status == 400 and "vadd_host.cpp" in body.get("error", ""), str(body))
        status, body = post_check(port, tokens["ben"], [("exercise", b"02"), ("vadd.cl", b"x" * 300_000), ("vadd_host.cpp", host)])
        check("an oversized upload: 413, naming the limit (256 KiB, as the README says)",
              status == 413 and "262144" in body.get("error", ""), str(body))
        # Under that limit the gate lets a check through (it refused 144 KiB and up): here to the
        # handler's refusal of an exercise the server does not offer.
        status, body = post_check(port, tokens["ben"], [("exercise", b"01"), ("device_info_host.cpp", b"/" * 200_000)])
        check("a check of 200 KB reaches the server's own rules (403: 01 is not offered), not the gate's 413",
              status == 403, str(body))
        # A contest judging holds the device (its shared lock beside the database): the check waits.
        judging = open(os.path.join(out, "class.db.judging.lock"), "a")
        fcntl.flock(judging, fcntl.LOCK_SH)
        status, body = post_check(port, tokens["ben"], fields)
        check("ben's check is queued", status == 200 and body.get("id"), str(body))
        ben_id = body.get("id")
        status, body = post_check(port, tokens["ben"], fields)
        check("a second check within the interval: 429", status == 429, str(body))
        status, body = post_check(port, tokens["ana"], fields)
        check("ana's check of the same exercise is queued behind it", status == 200 and body.get("queue_position") in (1, 2),
              str(body))
        ana_id = body.get("id")
        status, body, _ = http(port, f"/api/check/{ben_id}", tokens["ana"])
        check("ana cannot read ben's check: 404", status == 404, str(body))
        time.sleep(8)  # a grade of 02 takes about 5 s here
        status, body, _ = http(port, f"/api/check/{ben_id}", tokens["ben"])
        check("while a judging holds the device, ben's check waits", body.get("state") in ("queued", "running"), str(body))
        fcntl.flock(judging, fcntl.LOCK_UN)
        judging.close()
        deadline = time.monotonic() + 120
        state = None
        while time.monotonic() < deadline:
            status, body, _ = http(port, f"/api/check/{ben_id}", tokens["ben"])
            state = body.get("state") if isinstance(body, dict) else None
            if state in ("done", "failed"):
                break
            time.sleep(0.5)
        check("ben's check is graded and passes", state == "done" and body["result"]["passed"], json.dumps(body)[:2000])
        statuses = [http(port, f"/api/check/{ben_id}", tokens["ben"])[0] for _ in range(40)]
        check("40 polls at once: the burst answered, the rest 429 (a script polling in a loop holds nothing)",
              statuses.count(200) >= 15 and statuses.count(429) >= 10 and set(statuses) <= {200, 429}, str(statuses))
        check("another student's polls are not slowed by it", http(port, f"/api/check/{ana_id}", tokens["ana"])[0] == 200)
        body = http(port, f"/api/check/{ana_id}", tokens["ana"])[1]
        check("and ana's with it", body.get("state") == "done" and body["result"]["passed"], json.dumps(body)[:2000])
        check("in one grade: the server graded them together (one reference run)",
              f"remote checks {ben_id}, {ana_id} (02): graded together" in open(server.log).read(),
              open(server.log).read()[-2000:])
        listing = subprocess.run([workbook, "contest", "--db", os.path.join(out, "class.db"), "checks"],
                                 capture_output=True, text=True, timeout=60).stdout
        row = next((l for l in listing.splitlines() if l.split()[:1] == [str(ben_id)]), "")
        check("contest checks lists ben's check for the instructor", row.split()[1:5] == ["ben", "02", "done", "passed"],
              listing)
        check("and every check of the session until then: ana 6, ben 1",
              sum(1 for l in listing.splitlines()[1:] if l.strip()) == 7,
              listing)
        # 05 edits mmul.cl, a name several exercises share: the server files it in 05's folder.
        time.sleep(1.1)
        status, body = post_check(port, tokens["ben"], [("exercise", b"05"), ("mmul.cl", open(
            os.path.join(source, "solutions", "05_mmul_naive", "mmul.cl"), "rb").read())])
        check("a check of 05 (mmul.cl) is queued", status == 200, str(body))
        mm_id, deadline = body.get("id"), time.monotonic() + 180
        while time.monotonic() < deadline:
            body = http(port, f"/api/check/{mm_id}", tokens["ben"])[1]
            if body.get("state") in ("done", "failed"):
                break
            time.sleep(0.5)
        check("and passes", body.get("state") == "done" and body["result"]["passed"], json.dumps(body)[:1500])
        leftovers = os.listdir(os.path.join(out, "class.db.checks")) if os.path.isdir(os.path.join(out, "class.db.checks")) else []
        check("no check's files are left on the server", leftovers == [], str(leftovers))
    finally:
        server.stop()
        student.run("leave")
        student.fresh()
    print("all ok" if lab_test.failures == 0 else f"{lab_test.failures} FAILED")
    return 1 if lab_test.failures else 0


if __name__ == "__main__":
    sys.exit(main())
