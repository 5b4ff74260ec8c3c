"""What joining a class costs a check: `workbook check 02` (the starter, built, failing) timed not
joined, joined with the server up, joined with the server down, and joined with a server that
accepts and never answers; the modes take turns round by round, so that the machine's noise falls
on all of them alike. Prints a table (median and fastest of ROUNDS, and the median's difference
from "not joined").

  python3 bench/lab_latency.py WORKBOOK SCRATCH_WORKBOOK OUT_DIR [ROUNDS]

WORKBOOK is the main build's command (the server), SCRATCH_WORKBOOK a scratch course's wrapper
(tests/cli/make_scratch.sh, e.g. build/cli-scratch/build/bin/workbook after `ctest -R cli.scratch`);
WORKBOOK_SCRATCH and WORKBOOK_SOURCE name the scratch and the source trees as for the CLI tests.
"""
import os
import socket
import statistics
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cli"))
from lab_test import a_class, free_port  # noqa: E402


def main():
    workbook, wb, out = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 9
    scratch = os.environ["WORKBOOK_SCRATCH"]
    server, student, port = a_class(workbook, wb, out, "ana,Ana\n")
    student.fresh()
    if not server.start():
        sys.exit("the server did not start: " + open(server.log).read())
    token = server.tokens()["ana"]
    class_toml = os.path.join(scratch, ".workbook", "class.toml")
    student.run("check", "02")  # builds the starter once
    student.run("join", f"http://127.0.0.1:{port}", "--token", token)
    joined = open(class_toml).read()
    silent_port = free_port()
    silent = socket.socket()
    silent.bind(("127.0.0.1", silent_port))
    silent.listen(64)
    held = []

    def accept():
        try:
            while True:
                held.append(silent.accept()[0])
        except OSError:
            pass

    threading.Thread(target=accept, daemon=True).start()
    dead_port = free_port()  # nothing listens there
    modes = {
        "not joined": None,
        "joined, server up": joined,
        "joined, server down": joined.replace(f":{port}", f":{dead_port}"),
        "joined, server silent": joined.replace(f":{port}", f":{silent_port}"),
    }
    times = {m: [] for m in modes}
    try:
        for r in range(rounds):
            for mode, text in modes.items():
                if text is None:
                    if os.path.exists(class_toml):
                        os.remove(class_toml)
                else:
                    with open(class_toml, "w") as f:
                        f.write(text)
                    os.chmod(class_toml, 0o600)
                code, output, seconds = student.run("check", "02")
                if code != 1:
                    sys.exit(f"the check of 02's starter should fail; it gave {code}:\n{output}")
                times[mode].append(seconds)
            print(f"round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    finally:
        server.stop()
        silent.close()
        student.run("leave")
        student.fresh()
    base = statistics.median(times["not joined"])
    print(f"workbook check 02 (the starter, built; fails), {rounds} rounds, modes in turn\n")
    print(f"{'mode':<24}{'median s':>10}{'fastest s':>11}{'vs not joined':>15}")
    for mode, t in times.items():
        med = statistics.median(t)
        print(f"{mode:<24}{med:>10.3f}{min(t):>11.3f}{med - base:>+14.3f}s")


if __name__ == "__main__":
    main()
