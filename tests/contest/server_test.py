#!/usr/bin/env python3
"""End-to-end tests of `contest serve` against real servers on 127.0.0.1 (no OpenCL, no judge).

  server_test.py roster HELPER SCRATCH   one token per student: the alias bound to it, the queue
                                         cap and the rate limit per student, look-alike and bidi
                                         aliases refused, tokens stored only as hashes
  server_test.py slow HELPER SCRATCH     40 slow clients: the board and the API keep answering
                                         within a second; the whole-request deadline; the cap
                                         per address

HELPER is contest_serve_test. Prints ok/FAIL lines; exits 1 on any failure.
"""
import hashlib
import os
import re
import shutil
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
import time

failures = 0


def check(what, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + what + ("" if ok or not detail else f"  [{detail}]"), flush=True)
    if not ok:
        failures += 1


class Server:
    """contest_serve_test serve, on a free port; stopped with SIGTERM."""

    def __init__(self, helper, scratch, name, token="-", *options):
        self.log = os.path.join(scratch, name + ".log")
        self.db = os.path.join(scratch, name + ".db")
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen([helper, "serve", self.db, "0", token, *options], stdout=log,
                                         stderr=subprocess.STDOUT)
        self.port = None
        for _ in range(100):
            m = re.search(r"http://127\.0\.0\.1:(\d+)/", self.text())
            if m:
                self.port = int(m.group(1))
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)

    def text(self):
        with open(self.log, errors="replace") as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def request(port, raw, source="127.0.0.1", timeout=5.0):
    """Sends raw bytes, reads the answer until the server closes: (status or None, body, seconds)."""
    start = time.monotonic()
    s = socket.socket()
    s.settimeout(timeout)
    data = b""
    try:
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(raw)
        while time.monotonic() - start < timeout:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    finally:
        s.close()
    elapsed = time.monotonic() - start
    m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    if not m or b"\r\n\r\n" not in data:
        return None, "", elapsed
    return int(m.group(1)), data.split(b"\r\n\r\n", 1)[1].decode("utf-8", "replace"), elapsed


def get(port, path, source="127.0.0.1", timeout=5.0):
    return request(port, f"GET {path} HTTP/1.1\r\nHost: contest\r\nConnection: close\r\n\r\n".encode(), source,
                   timeout)


def post(port, token, alias, kernel="// contest: global = N, N\n__kernel void mmul() {}\n"):
    """POST /api/submit as a multipart form (alias None: no alias field): (status, body)."""
    boundary = "----workbook-test-boundary"
    parts = []
    if alias is not None:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="alias"\r\n\r\n{alias}\r\n')
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="kernel"; filename="k.cl"\r\n'
                 f"Content-Type: text/plain\r\n\r\n{kernel}\r\n--{boundary}--\r\n")
    body = "".join(parts).encode()
    head = (f"POST /api/submit HTTP/1.1\r\nHost: contest\r\nConnection: close\r\n"
            f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {len(body)}\r\n")
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    status, text, _ = request(port, head.encode() + b"\r\n" + body)
    return status, text


# --- one identity per student -------------------------------------------------------------------

def read_tokens(path):
    tokens = {}
    with open(path) as f:
        for line in f.read().splitlines()[1:]:
            student, token = line.split(",")[0], line.rsplit(",", 1)[1]
            tokens[student] = token
    return tokens


def roster_test(helper, scratch):
    roster = os.path.join(scratch, "roster.csv")
    tokens_file = os.path.join(scratch, "tokens.csv")
    with open(roster, "w") as f:
        f.write('id,name\nalice\nbob,Bob B.\ncarol\ndave,"Dave, the Great"\n')

    server = Server(helper, scratch, "roster", "-", "--roster", roster, "--tokens", tokens_file, "--interval", "0",
                    "--max-queued", "50")
    check("the server starts with a roster", server.port is not None, server.text())
    if server.port is None:
        return
    port = server.port
    check("it says uploads need one token per student", "one token per student" in server.text())
    check("the tokens file is mode 0600", stat.S_IMODE(os.stat(tokens_file).st_mode) == 0o600)
    tokens = read_tokens(tokens_file)
    check("four students got a 64-hex-digit token each",
          sorted(tokens) == ["alice", "bob", "carol", "dave"] and
          all(re.fullmatch(r"[0-9a-f]{64}", t) for t in tokens.values()), str(tokens))

    check("no token: 401", post(port, None, "alice")[0] == 401)
    check("a made-up token: 401", post(port, "f" * 64, "alice")[0] == 401)
    check("alice uploads as \"Alice\": 200", post(port, tokens["alice"], "Alice")[0] == 200)
    status, text = post(port, tokens["alice"], "Bob B.")
    check("alice cannot upload as bob's roster name: 403 naming her alias", status == 403 and "Alice" in text, text)
    status, text = post(port, tokens["alice"], "mallory")
    check("alice cannot switch to a new alias: 403", status == 403, text)
    check("alice without an alias field: 200 (her alias)", post(port, tokens["alice"], None)[0] == 200)
    check("alice as \"ALICE\" (the same alias, case-folded): 200", post(port, tokens["alice"], "ALICE")[0] == 200)
    status, text = post(port, tokens["carol"], "bob b.")
    check("carol cannot take bob's alias: 403", status == 403 and "another student's alias" in text, text)
    status, text = post(port, tokens["carol"], "\uff21\uff2c\uff29\uff23\uff25")
    check("carol cannot take alice's alias in fullwidth letters: 403", status == 403, text)
    check("bob uploads without an alias field (the roster's name): 200", post(port, tokens["bob"], None)[0] == 200)

    # Look-alikes of the instructor's rows and hidden characters, over HTTP.
    for alias, words, what in [
            ("(baseline:\u00a0naive kernel)", "instructor", "the baseline's name with a no-break space"),
            ("(reference: instructor\u2019s tuned kernel)", "instructor", "the reference's with a curly apostrophe"),
            ("\uff08baseline: naive kernel\uff09", "instructor", "the baseline's in fullwidth parentheses"),
            ("b\u0430seline: naive kernel", "looks like", "the baseline's with a Cyrillic a"),
            ("car\u202elo", "U+202E", "a right-to-left override"),
            ("carol\u2066x\u2069", "U+2066", "a left-to-right isolate"),
            ("ca\u200brol", "U+200B", "a zero-width space")]:
        status, text = post(port, tokens["carol"], alias)
        check(f"carol as {what}: 400 with a clear reason", status == 400 and words in text, f"{status} {text}")
    check("carol picks a plain alias: 200", post(port, tokens["carol"], "carol")[0] == 200)

    # The queue cap, per student: dave fills his 50, the 51st is refused; the others go on.
    statuses = [post(port, tokens["dave"], None)[0] for _ in range(50)]
    check("dave queues 50 entries: all 200", statuses == [200] * 50, str(statuses))
    status, text = post(port, tokens["dave"], None)
    check("dave's 51st queued entry: 429 naming the cap", status == 429 and "at most 50" in text, f"{status} {text}")
    check("alice can still upload (the cap is per student): 200", post(port, tokens["alice"], None)[0] == 200)

    status, text, _ = get(port, "/api/submissions")
    check("/api/submissions shows dave's entries under the roster's name", '"alias":"Dave, the Great"' in text)
    check("SIGTERM stops it: exit 0", server.stop() == 0)

    # Every entry's code and the tokens' hashes: the server's user's alone.
    modes = {p: oct(stat.S_IMODE(os.stat(p).st_mode)) for p in [server.db, server.db + "-wal"] if os.path.exists(p)}
    check("the database (and its WAL) is mode 0600", modes and all(m == "0o600" for m in modes.values()), str(modes))
    db = sqlite3.connect(server.db)
    aliases = [row[0] for row in db.execute("SELECT alias FROM submissions WHERE owner = 'student:alice'")]
    check("every alice entry is under her bound alias \"Alice\"", aliases == ["Alice"] * 4, str(aliases))
    stored = {row[0]: row[1] for row in db.execute("SELECT id, token_hash FROM students")}
    db.close()
    check("the database holds each token's SHA-256",
          all(stored.get(s) == hashlib.sha256(t.encode()).hexdigest() for s, t in tokens.items()), str(stored))
    blob = b"".join(open(p, "rb").read() for p in [server.db, server.db + "-wal"] if os.path.exists(p))
    check("no token appears in the database files", not any(t.encode() in blob for t in tokens.values()))
    check("no token appears in the server's log", not any(t in server.text() for t in tokens.values()))

    # A second start: a new student (erin) gets a token, carol left the roster, bob lost his;
    # the default rate limit, per student.
    with open(roster, "w") as f:
        f.write("alice\nbob,Bob B.\ndave\nerin\n")
    server = Server(helper, scratch, "roster", "-", "--roster", roster, "--tokens", tokens_file, "--reissue", "bob")
    check("the server starts again with the new roster", server.port is not None, server.text())
    if server.port is None:
        return
    port = server.port
    again = read_tokens(tokens_file)
    check("only erin and bob got new tokens", sorted(k for k in again if again[k] != tokens.get(k)) == ["bob", "erin"])
    check("carol, off the roster, is refused: 401", post(port, tokens["carol"], "carol")[0] == 401)
    check("bob's old token is refused: 401", post(port, tokens["bob"], None)[0] == 401)
    check("erin's first upload: 200", post(port, again["erin"], "erin")[0] == 200)
    status, text = post(port, again["erin"], "erin")
    check("erin's second upload at once: 429 (one per student per 60 s)",
          status == 429 and "less than 60 s ago" in text, f"{status} {text}")
    check("SIGTERM stops it: exit 0", server.stop() == 0)

    # Enrolment is one transaction: with a tokens file it may not write (readable by others), the
    # server refuses to start and the database gains no student, so no token is lost.
    with open(roster, "w") as f:
        f.write("alice\nbob,Bob B.\ndave\nerin\nfred\nzoe,CAROL\n")
    os.chmod(tokens_file, 0o644)
    server = Server(helper, scratch, "roster", "-", "--roster", roster, "--tokens", tokens_file)
    check("a tokens file others can read: the server refuses to start, naming it",
          server.port is None and server.stop() != 0 and "chmod 600" in server.text(), server.text())
    db = sqlite3.connect(server.db)
    enrolled = sorted(row[0] for row in db.execute("SELECT id FROM students"))
    db.close()
    check("and the database gained no student (fred and zoe are not half-enrolled)",
          enrolled == ["alice", "bob", "carol", "dave", "erin"], str(enrolled))
    os.chmod(tokens_file, 0o600)

    # A roster name that a student already took at an upload (carol chose "carol", and she is off
    # the roster now): the server still starts, zoe is enrolled without it and told why.
    server = Server(helper, scratch, "roster", "-", "--roster", roster, "--tokens", tokens_file)
    check("the server starts although zoe's roster name is carol's alias", server.port is not None, server.text())
    if server.port is None:
        return
    port = server.port
    check("it warns that zoe is enrolled without \"CAROL\", naming carol and the fix",
          re.search(r'warning: zoe \(roster line 6\) is enrolled without the name "CAROL": student "carol" took it',
                    server.text()) is not None and "another name beside them" in server.text(), server.text())
    third = read_tokens(tokens_file)
    check("fred and zoe got their tokens (and nobody else a new one)",
          sorted(k for k in third if third[k] != again.get(k)) == ["fred", "zoe"], str(sorted(third)))
    status, text = post(port, third["zoe"], "carol")
    check("zoe cannot upload as carol: 403", status == 403 and "another student's alias" in text, f"{status} {text}")
    check("zoe picks another alias: 200", post(port, third["zoe"], "Zoe")[0] == 200)
    check("fred uploads: 200", post(port, third["fred"], "fred")[0] == 200)
    check("SIGTERM stops it: exit 0", server.stop() == 0)

    # With one shared token, two spellings of one alias are still one alias (one rate limit, one row).
    server = Server(helper, scratch, "shared", "SECRET")
    if server.port is not None:
        check("shared token: \"Ada\" uploads: 200", post(server.port, "SECRET", "Ada")[0] == 200)
        status, text = post(server.port, "SECRET", "\uff41\uff44\uff41")
        check("shared token: \"ａｄａ\" (fullwidth) at once is the same alias: 429", status == 429, f"{status} {text}")
        status, text = post(server.port, "SECRET", "  ADA ")
        check("shared token: \"  ADA \" is too: 429", status == 429, f"{status} {text}")
    check("shared token: the server stops", server.stop() == 0)

    # Two roster names that are one alias (case-folded, NFKC): refused before anything is enrolled.
    twins = os.path.join(scratch, "twins.csv")
    with open(twins, "w") as f:
        f.write("id,name\nann,Ann\nbea,Bea\ncat,\uff21NN\n")
    server = Server(helper, scratch, "twins", "-", "--roster", twins, "--tokens", os.path.join(scratch, "twins-tokens.csv"))
    code = server.stop()
    check("two roster names that are one alias: the server refuses, naming both lines",
          server.port is None and code != 0 and "twins.csv:4" in server.text() and "line 2" in server.text(),
          server.text())
    check("... and issued no token", not os.path.exists(os.path.join(scratch, "twins-tokens.csv")))

    # The tokens must stay the instructor's: a tokens file others can read is refused.
    loose = os.path.join(scratch, "loose.csv")
    with open(loose, "w"):
        pass
    os.chmod(loose, 0o644)
    server = Server(helper, scratch, "loose", "-", "--roster", roster, "--tokens", loose)
    code = server.stop()
    check("a tokens file readable by others stops the server, saying chmod 600",
          server.port is None and code != 0 and "chmod 600" in server.text(), server.text())
    check("... and nothing was written to it", os.path.getsize(loose) == 0)


# --- slow clients -------------------------------------------------------------------------------

class SlowClient(threading.Thread):
    """Sends a request's bytes one every `every` seconds from `source`; reconnects when the server
    closes, and counts how it was closed."""

    def __init__(self, port, source, every):
        super().__init__(daemon=True)
        self.port, self.source, self.every = port, source, every
        self.stop_event = threading.Event()
        self.connected = threading.Event()
        self.answers = []  # the first line of each answer before a close
        self.open = False

    def run(self):
        text = b"GET /api/board HTTP/1.1\r\nHost: contest\r\nX-Slow: " + b"x" * 10000
        while not self.stop_event.is_set():
            s = socket.socket()
            try:
                s.bind((self.source, 0))
                s.connect(("127.0.0.1", self.port))
                self.open = True
                self.connected.set()
                for i in range(len(text)):
                    s.send(text[i:i + 1])
                    s.settimeout(self.every)
                    try:
                        data = s.recv(4096)
                        self.answers.append(data.split(b"\r\n")[0].decode(errors="replace") or "closed")
                        break  # answered or closed: reconnect
                    except socket.timeout:
                        pass
                    if self.stop_event.is_set():
                        break
            except OSError as e:
                self.answers.append(f"error {e}")
            finally:
                self.open = False
                s.close()
            self.stop_event.wait(0.05)

    def stop(self):
        self.stop_event.set()


def probe_for(port, seconds, what):
    """GET /, /api/board and /api/submissions in turn for `seconds`: the latencies; checks each
    answered 200 within 3 s: far below the 10 s a slow client may hold a handler, which a starved
    probe would wait, and above what a loaded 2-core machine adds (a probe of 1.0 s in CI)."""
    paths = ["/", "/api/board", "/api/submissions"]
    latencies, bad = [], []
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end:
        path = paths[i % len(paths)]
        status, _, elapsed = get(port, path, timeout=3.0)
        latencies.append(elapsed)
        if status != 200 or elapsed >= 3.0:
            bad.append(f"{path}: {status} after {elapsed:.2f} s")
        i += 1
        time.sleep(0.2)
    latencies.sort()
    check(f"{what}: {len(latencies)} probes of /, /api/board, /api/submissions each answered 200 within 3 s "
          f"(median {latencies[len(latencies) // 2] * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms)",
          not bad and latencies, "; ".join(bad[:5]))
    return latencies


def slow_test(helper, scratch):
    server = Server(helper, scratch, "slow", "SECRET")
    check("the server starts", server.port is not None, server.text())
    if server.port is None:
        return
    port = server.port
    probe_for(port, 1, "idle")

    # 40 slow clients, each from an address of its own (so the cap per address does not apply):
    # only the gate's design keeps the handlers free.
    clients = [SlowClient(port, f"127.0.1.{i + 1}", 5.0) for i in range(40)]
    for c in clients:
        c.start()
    for c in clients:
        c.connected.wait(5)
    time.sleep(0.5)
    check("40 slow clients from 40 addresses are connected", sum(c.open for c in clients) == 40,
          f"{sum(c.open for c in clients)} open")
    probe_for(port, 12, "under 40 slow clients (one header byte every 5 s), past their 10 s deadline")
    answers = [a for c in clients for a in c.answers]
    check("each slow client was cut at the 10 s deadline with 408",
          len(answers) >= 40 and all("408" in a for a in answers), str(answers[:5]))
    for c in clients:
        c.stop()
    for c in clients:
        c.join(6)

    # 40 slow connections from one address: the cap lets 10 in and refuses the rest at once.
    clients = [SlowClient(port, "127.0.2.1", 5.0) for _ in range(40)]
    for c in clients:
        c.start()
        c.connected.wait(5)
    time.sleep(1.0)
    refused = sum(1 for c in clients if any("503" in a for a in c.answers))
    check("40 slow connections from one address: 30 refused at once with 503", refused == 30, f"{refused} refused")
    status, text, elapsed = get(port, "/api/board", source="127.0.2.1", timeout=1.0)
    check("that address's own probe is refused at once (503)", status == 503 and elapsed < 1.0,
          f"{status} after {elapsed:.2f} s")
    probe_for(port, 3, "other addresses, while one holds its 10 connections")
    for c in clients:
        c.stop()
    check("SIGTERM stops the server: exit 0", server.stop() == 0)

    # The deadline is for the whole request: a byte every 0.5 s never trips a per-read timeout.
    server = Server(helper, scratch, "deadline", "SECRET", "--request-deadline", "2")
    if server.port is None:
        check("the server with a 2 s deadline starts", False, server.text())
        return
    s = socket.socket()
    s.connect(("127.0.0.1", server.port))
    start = time.monotonic()
    answer = b""
    s.settimeout(0.5)
    for byte in b"GET /api/board HTTP/1.1\r\nHost: contest\r\nX-Slow: " + b"x" * 100:
        try:
            s.send(bytes([byte]))
            answer = s.recv(4096)
            break
        except socket.timeout:
            pass
        except OSError:
            break
        if time.monotonic() - start > 6:
            break  # no deadline at all
    elapsed = time.monotonic() - start
    s.close()
    check(f"a request trickling in at 2 bytes/s is cut at the 2 s deadline with 408 (after {elapsed:.2f} s)",
          answer.startswith(b"HTTP/1.1 408") and 1.8 <= elapsed < 3.5, repr(answer[:80]))

    # curl's "Expect: 100-continue" gets its 100 at once from the gate, then the real answer.
    body = b"x" * 2000
    s = socket.socket()
    s.settimeout(2)
    s.connect(("127.0.0.1", server.port))
    s.sendall(b"POST /api/submit HTTP/1.1\r\nHost: contest\r\nExpect: 100-continue\r\n"
              b"Content-Type: text/plain\r\nContent-Length: 2000\r\n\r\n")
    start = time.monotonic()
    first = s.recv(4096)
    check("Expect: 100-continue is answered with 100 at once",
          first.startswith(b"HTTP/1.1 100 Continue") and time.monotonic() - start < 1.0, repr(first[:40]))
    s.sendall(body)
    rest = b""
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            rest += chunk
    except OSError:
        pass
    s.close()
    check("... and the request is then answered (401: no token), once", rest.startswith(b"HTTP/1.1 401")
          and rest.count(b"HTTP/1.1") == 1, repr(rest[:60]))
    status, text, _ = request(server.port, b"POST /api/submit HTTP/1.1\r\nHost: c\r\nContent-Length: 99999999\r\n\r\n")
    check("a Content-Length past the limit: 413 before any body is read", status == 413, f"{status} {text}")
    check("SIGTERM stops the server: exit 0", server.stop() == 0)
    slow_readers_test(helper, scratch)


def non_reader(port, source, path="/api/board"):
    """A connection that asks for `path` and never reads the answer (a receive buffer of 1 KiB)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: contest\r\n\r\n".encode())
    return s


def slow_readers_test(helper, scratch):
    """Clients that ask for a large answer and never read it: the server's workers stay free."""
    db = os.path.join(scratch, "readers.db")
    made = subprocess.run([helper, "record-many", db, "entry-", "1600", "40"], capture_output=True, text=True)
    check("1,600 entries are recorded (on 40 devices: cheap to rank)", made.returncode == 0, made.stderr)
    server = Server(helper, scratch, "readers", "SECRET")
    if server.port is None:
        check("the server with 1,600 entries starts", False, server.text())
        return
    port = server.port
    status, text, _ = get(port, "/api/board")
    # The server keeps 64 KiB per socket in the kernel (SO_SNDBUF, doubled by Linux), the client 1 KiB.
    check(f"its /api/board is large ({len(text) // 1024} KiB: more than the sockets' buffers hold)",
          status == 200 and len(text) > 256 * 1024, f"{status}, {len(text)} bytes")
    # More non-readers than the server has workers (8), each from an address of its own.
    readers = [non_reader(port, f"127.0.4.{i + 1}") for i in range(16)]
    time.sleep(0.5)
    probe_for(port, 4, "16 clients from 16 addresses that never read their answers")
    # And from one address, as many as it may open (10).
    readers += [non_reader(port, "127.0.5.1") for _ in range(10)]
    time.sleep(0.5)
    probe_for(port, 4, "10 more from one address")
    for s in readers:
        s.close()
    check("SIGTERM stops the server: exit 0", server.stop() == 0)


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("roster", "slow"):
        print(__doc__)
        return 2
    mode, helper, scratch = sys.argv[1:]
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    (roster_test if mode == "roster" else slow_test)(helper, scratch)
    if failures:
        print(f"{failures} check(s) FAILED; the servers' logs are in {scratch}")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
