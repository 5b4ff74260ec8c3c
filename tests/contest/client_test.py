"""The participant's client against a real server: `workbook contest submit|status|board --server`
and `workbook contest check`.

  client_test.py HELPER WORKBOOK SCRATCH SOURCE_DIR

HELPER is contest_serve_test (the server with its judge off), WORKBOOK the client. A roster
server: an upload with the student's token, the refusals (a bad token, another student's alias, the
rate limit, an oversized file, a closed contest) each said with a fix and nothing stored; `status`
shows only the token's own entries, with their queue places; `board` the live board. A shared-token
server: `status --alias`. Bad addresses. `contest check` on this machine's device: a correct kernel
passes, one that writes zeros is rejected with the judge's reason. Prints ok/FAIL lines.
"""
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_test import Server, check, read_tokens  # noqa: E402
import server_test  # noqa: E402

KERNEL = "// contest: global = roundup(N, 16), roundup(N, 16)\n// contest: local = 16, 16\n__kernel void mmul() {}\n"


def run(argv, env=None, timeout=120):
    e = dict(os.environ)
    e.pop("WORKBOOK_CONTEST_TOKEN", None)
    e.update(env or {})
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=e)
    return r.returncode, r.stdout + r.stderr


def stored(db):
    with sqlite3.connect(db) as c:
        return c.execute("SELECT COUNT(*) FROM submissions").fetchone()[0]


def roster_server(helper, workbook, scratch, kernel):
    roster = os.path.join(scratch, "roster.csv")
    tokens_file = os.path.join(scratch, "tokens.csv")
    with open(roster, "w") as f:
        f.write("id,name\nalice,Alice\nbob,Bob\n")
    server = Server(helper, scratch, "roster", "-", "--roster", roster, "--tokens", tokens_file, "--interval", "30")
    check("the roster server starts", server.port is not None, server.text()[-400:])
    if server.port is None:
        return
    url = f"http://127.0.0.1:{server.port}"
    tokens = read_tokens(tokens_file)
    wb = [workbook, "contest"]

    code, out = run(wb + ["submit", kernel, "--server", url, "--token", tokens["alice"]])
    check("alice uploads with her token (no --alias: the roster's name)", code == 0 and "queued as entry 1" in out, out)
    code, out = run(wb + ["submit", kernel, "--server", url], env={"WORKBOOK_CONTEST_TOKEN": tokens["bob"]})
    check("bob uploads with the token in WORKBOOK_CONTEST_TOKEN", code == 0 and "queued as entry 2" in out, out)

    before = stored(server.db)
    code, out = run(wb + ["submit", kernel, "--server", url, "--token", "f" * 64])
    check("a bad token: refused (401) with the fix", code == 1 and "HTTP 401" in out and "fix: check the token" in out, out)
    code, out = run(wb + ["submit", kernel, "--server", url, "--token", tokens["bob"], "--alias", "Alice"])
    check("bob as Alice: refused (403), naming his alias", code == 1 and "HTTP 403" in out and "Bob" in out, out)
    code, out = run(wb + ["submit", kernel, "--server", url, "--token", tokens["alice"]])
    check("alice again at once: refused (429) by the rate limit, with the fix",
          code == 1 and "HTTP 429" in out and "wait, then upload again" in out, out)
    big = os.path.join(scratch, "big.cl")
    with open(big, "w") as f:
        f.write(KERNEL + "// " + "x" * 300000 + "\n")
    code, out = run(wb + ["submit", big, "--server", url, "--token", tokens["bob"]])
    check("an oversized file: refused (413)", code == 1 and "HTTP 413" in out, out)
    bad = os.path.join(scratch, "bad.cl")
    with open(bad, "w") as f:
        f.write("__kernel void mmul() {}\n")
    code, out = run(wb + ["submit", bad, "--server", url, "--token", tokens["bob"]])
    check("a kernel without its declaration: refused here, before the upload", code != 0 and "contest:" in out, out)
    check("nothing refused was stored", stored(server.db) == before, str(stored(server.db)))

    code, out = run(wb + ["status", "--server", url, "--token", tokens["alice"]])
    lines = [l for l in out.splitlines() if l.strip()[:1].isdigit()]
    check("alice's status: her entry only, first in the queue",
          code == 0 and len(lines) == 1 and lines[0].split()[0] == "1" and "place 1 in the queue" in out, out)
    code, out = run(wb + ["status", "--server", url, "--token", tokens["bob"]])
    check("bob's status: his entry, second in the queue", code == 0 and "place 2 in the queue" in out and
          not any(l.split()[0] == "1" for l in out.splitlines() if l.strip()[:1].isdigit()), out)
    code, out = run(wb + ["status", "--server", url, "--token", "0" * 64])
    check("status with a bad token: refused (401)", code == 1 and "HTTP 401" in out, out)

    code, out = run(wb + ["board", "--server", url])
    check("the board before any run: none yet", code == 0 and "No results yet" in out, out)
    r = subprocess.run([helper, "record", server.db, "Alice", "120"], capture_output=True, text=True)
    check("a run recorded for Alice", r.returncode == 0, r.stdout + r.stderr)
    code, out = run(wb + ["board", "--server", url])
    check("the board in the terminal shows Alice's run", code == 0 and "Alice" in out and "120.00" in out, out)

    code, out = run(wb + ["--db", server.db, "close"])
    code, out = run(wb + ["submit", kernel, "--server", url, "--token", tokens["bob"]])
    check("after the close: refused (403) with the time", code == 1 and "HTTP 403" in out and "closed at" in out, out)
    check("SIGTERM stops the server", server.stop() == 0)


def shared_server(helper, workbook, scratch, kernel):
    server = Server(helper, scratch, "shared", "workshop", "--interval", "0")
    check("the shared-token server starts", server.port is not None, server.text()[-400:])
    if server.port is None:
        return
    url = f"http://127.0.0.1:{server.port}"
    wb = [workbook, "contest"]
    code, out = run(wb + ["submit", kernel, "--server", url, "--token", "workshop", "--alias", "grace"])
    check("an upload with the shared token and an alias", code == 0 and "queued as entry 1" in out, out)
    code, out = run(wb + ["submit", kernel, "--server", url, "--token", "workshop"])
    check("without an alias: refused (400)", code == 1 and "HTTP 400" in out, out)
    code, out = run(wb + ["status", "--server", url, "--token", "workshop", "--alias", "Grace"])
    check("status --alias: that alias's entries (its key, as the board's)", code == 0 and "place 1 in the queue" in out, out)
    code, out = run(wb + ["status", "--server", url, "--token", "workshop", "--alias", "linus"])
    check("another alias: none", code == 0 and "No entries of yours yet" in out, out)
    check("SIGTERM stops the server", server.stop() == 0)
    code, out = run(wb + ["board", "--server", url], timeout=60)
    check("a server that is gone: cannot reach it, with what to check", code != 0 and "cannot reach the contest server" in out, out)
    code, out = run(wb + ["board", "--server", "ftp://example"])
    check("an address that is not http://: the form it needs", code != 0 and "starting with http://" in out, out)


def local_check(workbook, scratch, source):
    ada = os.path.join(source, "contest", "examples", "ada.cl")
    code, out = run([workbook, "contest", "check", ada, "--n", "64"], env={"TMPDIR": scratch}, timeout=300)
    check("contest check: a correct kernel passes the judge's checks here", code == 0 and "ok: correct at every size" in out, out)
    zero = os.path.join(scratch, "zero.cl")
    with open(ada) as f:
        text = f.read()
    with open(zero, "w") as f:
        f.write(text.replace("C[row * N + col] = sum;", "C[row * N + col] = 0.0f;"))
    code, out = run([workbook, "contest", "check", zero, "--n", "64", "--no-race-check"], env={"TMPDIR": scratch})
    check("contest check: a kernel that writes zeros is rejected with the judge's reason",
          code == 1 and "the judge would reject it: wrong at N = 1" in out, out)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    helper, workbook, scratch, source = sys.argv[1:]
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    kernel = os.path.join(scratch, "k.cl")
    with open(kernel, "w") as f:
        f.write(KERNEL)
    roster_server(helper, workbook, scratch, kernel)
    shared_server(helper, workbook, scratch, kernel)
    local_check(workbook, scratch, source)
    print("PASS: client" if server_test.failures == 0 else f"FAIL: {server_test.failures} check(s)")
    sys.exit(1 if server_test.failures else 0)


if __name__ == "__main__":
    main()
