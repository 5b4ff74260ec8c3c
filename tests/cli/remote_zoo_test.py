"""Remote checks on a zoo: a device of this machine and one reached through a single-node Slurm.

  remote_zoo_test.py WORKBOOK SCRATCH_WORKBOOK OUT_DIR

As tests/cli/remote_test.py (env WORKBOOK_SCRATCH, WORKBOOK_SOURCE), with a zoo of three devices:
"here" (local), "cluster" (the same PoCL reached through the Slurm that tests/slurm/start_slurm.sh
starts; exit 77 where it cannot) and "nowhere" (a Slurm partition that does not exist). Checked:
join lists the devices; 02's solution passes and its starter fails on both with the local check's
messages, each labelled with its device; a planted bug only the race pass sees (exercise 11) is
caught on both; a host file that looks for the server's files and the other checks' job folders
finds nothing while another student's check runs beside it; a host file that never returns is
stopped at the server's time limit and the server keeps checking, while rung 15's solution passes
through Slurm with its speed table; a device Slurm cannot run comes
back with the reason; `contest checks` shows each check's device; no job's token and no check's
folder is left (the jobs' folders keep their Slurm logs, as a judging's do). Prints the round trip on each device. Prints ok/FAIL lines; exit 1 on any failure.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_test import a_class, check, http  # noqa: E402
from remote_test import post_check, problems  # noqa: E402
import lab_test  # noqa: E402


def wait_check(port, token, check_id, seconds=240):
    deadline, body = time.monotonic() + seconds, {}
    while time.monotonic() < deadline:
        body = http(port, f"/api/check/{check_id}", token)[1]
        if isinstance(body, dict) and body.get("state") in ("done", "failed"):
            return body
        time.sleep(0.5)
    return body


def main():
    workbook, wb, out = sys.argv[1:4]
    source = os.environ["WORKBOOK_SOURCE"]
    server, student, port = a_class(workbook, wb, out, "ana,Ana Lee\nben,Ben Okafor\n")
    start_slurm = os.path.join(source, "tests", "slurm", "start_slurm.sh")
    slurm_dir = os.path.join(out, "slurm")
    started = subprocess.run(["bash", start_slurm, "start", slurm_dir], capture_output=True, text=True)
    if started.returncode == 77:
        print("SKIP: " + started.stderr.strip())
        return 77
    if started.returncode != 0:
        print("FAIL: start_slurm.sh: " + started.stderr)
        return 1
    os.environ["SLURM_CONF"] = re.search(r"SLURM_CONF=(\S+)", started.stdout).group(1)
    os.makedirs(os.path.join(out, "tmp"))
    os.environ["TMPDIR"] = os.path.join(out, "tmp")  # the check jobs' folders on the node
    zoo = os.path.join(out, "zoo.toml")
    with open(zoo, "w") as f:
        f.write('[[device]]\nname = "here"\nreach = "local"\n\n'
                '[[device]]\nname = "cluster"\nreach = "slurm"\npartition = "debug"\nresult_timeout_s = 300\n\n'
                '[[device]]\nname = "nowhere"\nreach = "slurm"\npartition = "no-such-partition"\n')
    sandbox = shutil.which("bwrap") is not None
    race = shutil.which("oclgrind") is not None
    server.args = server.args[:server.args.index("--lab")] + ["--port", str(port), "--devices", zoo]
    # The limit cuts the hanging runner short and must leave room for rung 15's graded test on a
    # loaded machine (25 s did not, with ctest -j2: its test ran past it).
    server.args += ["--remote-checks", "02", "03", "11", "15", "--remote-interval", "0", "--remote-timeout", "75"]
    server.args += [] if sandbox else ["--no-sandbox"]
    server.args += [] if race else ["--no-race-check"]
    print(f"grading: sandbox {'on' if sandbox else 'OFF (no bwrap)'}, race pass {'on' if race else 'off'}")
    exercises = os.path.join(student.scratch, "exercises")
    try:
        if not check("the server starts with a zoo for remote checks", server.start(), open(server.log).read()):
            return 1
        tokens = server.tokens()
        student.fresh()
        code, text, _ = student.run("join", f"http://127.0.0.1:{port}", "--token", tokens["ana"])
        check("join names the devices a check may go to", code == 0 and '"here", "cluster", "nowhere"' in text
              and "--on NAME" in text, text)
        code, text, _ = student.run("progress")
        check("and progress lists them", '"here", "cluster", "nowhere"' in text, text)

        # The starter, then the solution of 02, on each device: the local check's verdict and messages.
        code, local, _ = student.run("check", "02")
        for device in ("here", "cluster"):
            code_r, remote, _ = student.run("check", "02", "--remote", "--on", device)
            check(f"02's starter fails on {device} with the local check's messages",
                  code == 1 and code_r == 1 and problems(local) and problems(local) == problems(remote),
                  f"local:\n{local}\nremote:\n{remote}")
            check(f"labelled with the device ({device})", f'remote check on "{device}": Portable' in remote, remote)
        student.solve("02_vadd")
        code, local, _ = student.run("check", "02")
        trips = {}
        for device in ("here", "cluster"):
            code_r, remote, seconds = student.run("check", "02", "--remote", "--on", device)
            trips[device] = seconds
            check(f"02's solution passes on {device}, as locally", code == 0 and code_r == 0 and "PASS 02" in remote,
                  remote)
        code, text, _ = student.run("check", "02", "--remote")
        check("without --on: the zoo's first device", code == 0 and 'remote check on "here"' in text, text)
        code, text, _ = student.run("check", "02", "--on", "elsewhere")
        check("a device the zoo lacks: refused, naming those it has (--on alone means --remote)",
              code == 2 and "elsewhere" in text and '"here", "cluster", "nowhere"' in text, text)
        code, text, _ = student.run("check", "02", "--on", "nowhere")
        check("a device Slurm cannot run: the check comes back with the reason",
              code == 1 and "sbatch did not take the job" in text, text)

        # A planted bug only the race pass sees (PoCL runs a group's work-items in turn).
        pi = open(os.path.join(source, "solutions", "11_pi", "pi.cl")).read()
        planted = pi.replace("    local_sums[lid] = sum;", "    if (lid % 2 == 1) {\n        local_sums[lid - 1] += sum;\n"
                             "        local_sums[lid] = 0.0f;\n    } else {\n        local_sums[lid] = sum;\n    }")
        check("the race-only bug is planted", planted != pi)
        if race:
            for who, device in (("ana", "here"), ("ben", "cluster")):
                status, body = post_check(port, tokens[who], [("exercise", b"11"), ("device", device.encode()),
                                                              ("pi.cl", planted.encode())])
                result = wait_check(port, tokens[who], body.get("id"), 400).get("result") or {}
                check(f"the race pass catches it on {device}", status == 200 and result.get("passed") is False
                      and "data race" in result.get("output", ""), json.dumps(result)[:3000])
        else:
            print("SKIP the race-only bug: no Oclgrind here")

        # ana's host file looks for the server's files and the job folders while ben's check runs.
        ben = [("exercise", b"02"), ("device", b"cluster"),
               ("vadd.cl", open(os.path.join(source, "solutions", "02_vadd", "vadd.cl"), "rb").read()),
               ("vadd_host.cpp", open(os.path.join(source, "solutions", "02_vadd", "vadd_host.cpp"), "rb").read())]
        status, body = post_check(port, tokens["ben"], ben)
        ben_id = body.get("id")
        places = [os.path.join(out, n) for n in ("class.db", "roster-tokens.csv", "class.db.instructor-token",
                                                 "class.db.jobs", "class.db.jobs/checks", "class.db.checks", "tmp")]
        snoop = open(os.path.join(source, "solutions", "03_vadd_chain", "vadd_chain.cpp")).read()
        # A folder's entry on the way to the runner's own folder is no leak: the sandbox makes those.
        snoop += ("\n#include <cstdio>\n#include <cstdlib>\n#include <dirent.h>\n#include <string>\n#include <unistd.h>\n"
                  "namespace {\nstruct Snoop {\n  Snoop() {\n    char cwd[4096] = {};\n    getcwd(cwd, sizeof cwd - 1);\n"
                  "    const std::string here = std::string(cwd) + \"/\";\n")
        for path in places:
            snoop += (f'    if (DIR* d = opendir("{path}")) {{ while (dirent* e = readdir(d)) if (e->d_name[0] != \'.\' && '
                      f'here.rfind(std::string("{path}/") + e->d_name + "/", 0) != 0) '
                      f'{{ std::printf("LEAK: {path}/%s\\n", e->d_name); std::fprintf(stderr, "LEAK: {path}/%s\\n", e->d_name); '
                      f'std::abort(); }} closedir(d); }}\n'
                      f'    if (FILE* f = std::fopen("{path}", "rb")) {{ if (std::fgetc(f) != EOF) '
                      f'{{ std::printf("LEAK: {path}\\n"); std::abort(); }} std::fclose(f); }}\n')
        snoop += "  }\n} snoop;\n}  // namespace\n"
        student.solve("03_vadd_chain")
        with open(os.path.join(exercises, "03_vadd_chain", "vadd_chain.cpp"), "w") as f:
            f.write(snoop)
        code, text, _ = student.run("--verbose", "check", "03", "--remote", "--on", "cluster")
        if sandbox:
            check("the snooping host file finds none of the server's files or job folders (it passes)",
                  code == 0 and "PASS 03" in text and "LEAK" not in text, text[-3000:])
        else:
            print("SKIP the snooping host file: no bubblewrap here")
        body = wait_check(port, tokens["ben"], ben_id)
        check("ben's check beside it is graded and passes", body.get("state") == "done" and body["result"]["passed"],
              json.dumps(body)[:2000])

        # A speed rung through Slurm (its grade times the kernel against the rung's references),
        # beside the hanging runner below on the other device.
        status, body = post_check(port, tokens["ben"], [("exercise", b"15"), ("device", b"cluster"), (
            "mmul.cl", open(os.path.join(source, "solutions", "15_sgemm_wpt", "mmul.cl"), "rb").read())])
        rung_id = body.get("id")
        check("a check of rung 15 is queued on cluster", status == 200, str(body))
        # A host file that never returns: the server's time limit stops it, and checks go on.
        hang = open(os.path.join(source, "solutions", "03_vadd_chain", "vadd_chain.cpp")).read()
        hang += "\n#include <unistd.h>\nnamespace {\nstruct Hang {\n  Hang() { for (;;) sleep(1); }\n} hang;\n}\n"
        with open(os.path.join(exercises, "03_vadd_chain", "vadd_chain.cpp"), "w") as f:
            f.write(hang)
        code, text, seconds = student.run("check", "03", "--remote", "--on", "here")
        check("a runner that never answers fails at the server's limit", code == 1 and "FAIL 03" in text
              and 75 <= seconds < 250, f"{seconds:.0f} s\n{text}")
        status, _, _ = http(port, "/api/board")
        check("the server keeps serving", status == 200)
        student.solve("03_vadd_chain")
        code, text, _ = student.run("check", "03", "--remote", "--on", "here")
        check("and checks again after it", code == 0 and "PASS 03" in text, text)

        body = wait_check(port, tokens["ben"], rung_id, 400)
        output = (body.get("result") or {}).get("output", "")
        check("rung 15's solution passes on cluster with its speed table", body.get("state") == "done"
              and body["result"]["passed"] and "speed at N =" in output and "the previous rung" in output,
              json.dumps(body)[:3000])
        listing = subprocess.run([workbook, "contest", "--db", os.path.join(out, "class.db"), "checks"],
                                 capture_output=True, text=True, timeout=60).stdout
        check("contest checks names each check's device", '"cluster" Portable' in listing and '"here" Portable'
              in listing and '"nowhere" the server could not grade this check: device "nowhere": sbatch did not take the job' in listing, listing)
        jobs = os.path.join(out, "class.db.jobs", "checks")
        left = [os.path.join(d, f) for d, _, fs in os.walk(jobs) for f in fs if f == "token"]
        check("no job's token is left", left == [], str(left))
        check("no check's folder is left on the node", os.listdir(os.path.join(out, "tmp")) == [],
              str(os.listdir(os.path.join(out, "tmp"))))
        checks_dir = os.path.join(out, "class.db.checks")
        check("nor on the server", os.listdir(checks_dir) == [], str(os.listdir(checks_dir)))
        check("whose checks' folder others may enter but not list (0711)",
              os.stat(checks_dir).st_mode & 0o777 == 0o711, oct(os.stat(checks_dir).st_mode))
        print(f"round trip of 02's solution: here (the server's worker) {trips.get('here', 0):.1f} s, "
              f"cluster (a Slurm job per check) {trips.get('cluster', 0):.1f} s")
    finally:
        server.stop()
        student.run("leave")
        student.fresh()
        subprocess.run(["bash", start_slurm, "stop", slurm_dir], capture_output=True)
    print("all ok" if lab_test.failures == 0 else f"{lab_test.failures} FAILED")
    return 1 if lab_test.failures else 0


if __name__ == "__main__":
    sys.exit(main())
