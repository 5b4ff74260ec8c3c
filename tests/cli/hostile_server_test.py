"""The student's client against servers that are broken or hostile: what they cost the laptop.

  hostile_server_test.py WORKBOOK SCRATCH_WORKBOOK OUT_DIR

(env WORKBOOK_SCRATCH, WORKBOOK_SOURCE, as tests/cli/lab_test.py.) A fake server of this script's:
- answers the board with 256 MiB: `workbook contest board --server` refuses it, naming the cap, its
  memory (maximum resident set) under 64 MiB;
- never answers: `contest board` ends with the connection's error within its 20 s timeout and a margin;
- takes a remote check and keeps it queued for ever: `check --remote` gives up at its deadline
  (WORKBOOK_REMOTE_DEADLINE_S=4 here; 30 minutes by default), saying what to do;
- answers every lab report "429 too many, retry after 1 s": the detached sender gives up after its
  refusals in a row and `workbook progress` says so, the report kept for the next check.
Prints ok/FAIL lines; exit 1 on any failure.
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_test import Student, check, wait_for  # noqa: E402

HUGE = 256 << 20


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/api/board":
            # 256 MiB of a JSON string, as fast as the client reads it.
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(HUGE))
            self.end_headers()
            chunk = b"x" * (1 << 20)
            try:
                self.wfile.write(b'{"devices": "')
                for _ in range(HUGE >> 20):
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif self.path == "/api/lab/hello":
            self.reply(200, {"student": "ana", "name": "Ana Lee", "alias": "ana", "lab": True,
                             "remote_checks": ["01"]})
        elif self.path.startswith("/api/check/"):
            self.reply(200, {"id": 7, "state": "queued", "queue_position": 3, "device": ""})
        else:
            self.reply(404, {"error": "no such page"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        if self.path == "/api/lab/check":
            self.server.busy_answers += 1
            self.reply(429, {"error": "too many reports"}, [("Retry-After", "1")])
        elif self.path == "/api/check":
            self.reply(200, {"id": 7})
        else:
            self.reply(404, {"error": "no such page"})


def run_measured(argv, env=None, timeout=120):
    """(exit status, output, seconds, maximum resident set in MiB) of one command."""
    start = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, stdin=subprocess.DEVNULL)
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    out = p.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(p.pid, 0)
    timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, out, time.monotonic() - start, usage.ru_maxrss / 1024


def main():
    workbook, wb, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.busy_answers = 0
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # accepts (the kernel does) and never answers
    silent_url = f"http://127.0.0.1:{silent.getsockname()[1]}"
    failures = 0
    try:
        code, text, seconds, rss = run_measured([workbook, "contest", "board", "--server", url])
        failures += not check("a 256 MiB board is refused, naming the cap", code != 0 and "larger than 4 MiB" in text, text)
        failures += not check(f"reading it cost {rss:.0f} MiB of memory (under 64) and {seconds:.1f} s", rss < 64, text)

        code, text, seconds, _ = run_measured([workbook, "contest", "board", "--server", silent_url])
        failures += not check(f"a server that never answers: `contest board` ends in {seconds:.0f} s (timeout 20 s)",
                              code != 0 and seconds < 40 and "cannot reach" in text, text)

        student = Student(wb, os.environ["WORKBOOK_SCRATCH"], os.environ["WORKBOOK_SOURCE"])
        student.fresh()
        code, text, _ = student.run("join", url, "--token", "a" * 64)
        failures += not check("join the fake class", code == 0, text)
        code, text, seconds = student.run("check", "01", "--remote", env={"WORKBOOK_REMOTE_DEADLINE_S": "4"})
        failures += not check(f"a check queued for ever: `check --remote` gives up at its deadline ({seconds:.0f} s)",
                              code == 2 and "no result from" in text and "workbook check 01" in text and seconds < 60, text)

        code, text, _ = student.run("check", "01")  # a local check: its report goes to the outbox, then the sender
        failures += not check("a local check of 01 runs and leaves a report to send", "01" in text, text)
        gave_up = wait_for("the sender to give up", lambda: "kept refusing" in student.run("progress")[1], 90)
        code, text, _ = student.run("progress")
        failures += not check(f"429 for ever: the sender gives up after {server.busy_answers} answers, and progress says so",
                              gave_up and 5 <= server.busy_answers <= 12, text)
        failures += not check("the report is kept for the next check", len(student.outbox()) >= 1, str(student.outbox()))
        student.run("leave")
    finally:
        server.shutdown()
        silent.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
