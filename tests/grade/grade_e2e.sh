#!/bin/bash
# End-to-end test of `workbook grade`: a class of submissions of every kind (correct, starters,
# a broken build, and hostile ones) graded on exercises 01 and 02, with the exact grades
# asserted, nothing escaping the sandbox, and a killed run that resumes to the same gradebook.
#   grade_e2e.sh SOURCE BUILD SCRATCH [nosandbox]
# With `nosandbox`, the hostile submissions that attack the verdict are graded with --no-sandbox
# (as where a machine refuses user namespaces: Docker, Gradescope): the checker must hold there too.
set -euo pipefail
src=$1 build=$2 work=$3 mode=${4:-sandbox}
wb="$build/bin/workbook"
subs="$work/submissions" out="$work/out"
# A run killed part-way (below) leaves its scratch tmpfs mounts; a rerun of this test starts clean.
grep -o " $work/[^ ]*" /proc/mounts | xargs -r umount -l 2>/dev/null || true
rm -rf "$work"
mkdir -p "$subs"
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$mode" = sandbox ] && ! why=$(bwrap --unshare-all --die-with-parent --ro-bind / / true 2>&1); then
    echo "SKIP: this machine refuses the sandbox's namespaces ($why); grade.e2e_nosandbox covers the checker here"
    exit 77
fi

# A submission: the solutions of 01 and 02 laid out as a student's tree.
solved() {
    local d="$subs/$1"
    mkdir -p "$d/exercises/01_device_info" "$d/exercises/02_vadd"
    cp "$src/solutions/01_device_info/"* "$d/exercises/01_device_info/"
    cp "$src/solutions/02_vadd/"* "$d/exercises/02_vadd/"
}
# Puts C++ at the start of the student's vadd_on_device (exercise 02's host code).
inject() {
    sed -i "/^void vadd_on_device/a $2" "$subs/$1/exercises/02_vadd/vadd_host.cpp"
}

solved alice                                                   # correct: full marks
mkdir -p "$subs/bob/exercises"                                 # the starters, as a zip
cp -r "$src/exercises/01_device_info" "$src/exercises/02_vadd" "$subs/bob/exercises/"
(cd "$subs/bob" && zip -qr ../bob.zip .) && rm -rf "$subs/bob"
solved carol && echo "this is not C++;" >> "$subs/carol/exercises/02_vadd/vadd_host.cpp"  # build fails
(cd "$subs" && tar -czf carol.tar.gz carol) && rm -rf "$subs/carol"
solved dave && inject dave 'std::exit(0);'                     # exits 0 before the work
solved eve && inject eve 'std::puts("[doctest] Status: SUCCESS!"); std::fflush(stdout); std::_Exit(0);'
solved frank && inject frank 'for (volatile int i = 0;; ) { (void)i; }'   # hangs
solved gina && inject gina 'std::abort();'                     # crashes
# forks: a child that outlives the test, then as many processes as it can get
solved hank && inject hank 'if (::fork() == 0) { ::execlp("sleep", "sleep", "613", (char*)nullptr); ::_exit(0); } for (int i = 0; i < 100000; ++i) if (::fork() < 0) break;'
sed -i '1i #include <unistd.h>' "$subs/hank/exercises/02_vadd/vadd_host.cpp"
# stalls only under the race pass (WORKBOOK_SMALL=1 reaches its runner there): 9 s a call (five
# calls: 45 s), each call within the runner's limit (13 s), so only the submission's race budget
# (40 s: twice the 20 s limit of 02, its one race-checked exercise) stops it.
solved stella && inject stella 'if (const char* s = std::getenv("WORKBOOK_SMALL")) if (*s == 0x31) ::sleep(9);'
sed -i '1i #include <unistd.h>' "$subs/stella/exercises/02_vadd/vadd_host.cpp"
sed -i '1i #include <cstdlib>' "$subs/stella/exercises/02_vadd/vadd_host.cpp"
solved ivy && inject ivy 'for (int i = 0; i < 4400000; ++i) std::fputs("flood flood flood flood\\n", stdout);'
# forges: writes a fake gradebook and evidence, escapes to the instructor tree, reads a solution
solved jack && inject jack 'std::system("echo jack,jack,9,9,18,3 > ../../gradebook.csv; for f in evidence-*; do echo evidence fake > $f; done; touch '"$src"'/PWNED; cat '"$src"'/solutions/02_vadd/vadd.cl; ls /tmp '"$subs"'");'
# hard-codes an answer and edits the test (ignored): only the public harness is changed
solved kate && sed -i 's/c\[i\] = a\[i\] + b\[i\];/c[i] = 0.0f;/' "$subs/kate/exercises/02_vadd/vadd.cl"
echo 'TEST_CASE("always passes") {}' > "$subs/kate/exercises/02_vadd/test.cpp"
mkdir -p "$subs/liam/exercises/01_device_info"                 # only exercise 01
cp "$src/solutions/01_device_info/"* "$subs/liam/exercises/01_device_info/"

# Attacks on the verdict itself (the trusted checker: the student's code runs in a separate
# runner process that never sees the seed, the evidence file or the checker's memory).
wrong_kernel() { sed -i 's/c\[i\] = a\[i\] + b\[i\];/c[i] = 0.0f;/' "$subs/$1/exercises/02_vadd/vadd.cl"; }
# A forged verdict: what the old single-process harness accepted, written before main() runs.
forge='{ const char* f = std::getenv("WORKBOOK_EVIDENCE_FILE"); const char* n = std::getenv("WORKBOOK_EVIDENCE_NONCE"); std::FILE* o = std::fopen(f ? f : "evidence-forged", "w"); if (o) { std::fprintf(o, "evidence %s\ncase ok 02_vadd kernel: c[i] = a[i] + b[i] for awkward sizes, global size past count\ncase ok 02_vadd host: vadd_on_device computes c = a + b on the device\nrun cases=2 failed=0 asserts=24 asserts_failed=0\n", n ? n : "guess"); std::fclose(o); } }'
solved mallory && wrong_kernel mallory &&                        # static initialiser forges and exits 0
    printf '\n#include <cstdio>\n#include <cstdlib>\nnamespace { struct Forge { Forge() %s } forge_now; struct Quit { Quit() { std::_Exit(0); } } quit_now; }\n' "$forge" >> "$subs/mallory/exercises/02_vadd/vadd_host.cpp"
solved nina && wrong_kernel nina &&                              # a destructor/atexit handler forges
    printf '\n#include <cstdio>\n#include <cstdlib>\nnamespace { void forge_at_exit() %s struct Later { Later() { std::atexit(forge_at_exit); } ~Later() { forge_at_exit(); } } later; }\n' "$forge" >> "$subs/nina/exercises/02_vadd/vadd_host.cpp"
# Interposition: the student's file defines the comparison the tests use (it links into the
# runner only; the checker's own copy decides).
solved olivia && wrong_kernel olivia && cat >> "$subs/olivia/exercises/02_vadd/vadd_host.cpp" <<'CPP'
#include "workbook/check.hpp"
namespace workbook {
Comparison compare(std::span<const float>, std::span<const float>, Tolerance, std::span<const float>) { return {}; }
}
CPP
# Snoops: the environment of its own process and of PID 1, PID 1's command line, the checker's
# output folder; prints everything into its own output (correct work otherwise).
probe='for f in '"$build"'/exercises/02_vadd/ex02_vadd_solution_kernels.cpp '"$build"'/bin/runner-02_vadd-solution '"$build"'/bin/runner-02_vadd-variant-grid_stride '"$build"'/bin/test-10_mmul_block-mutant-missing_second_barrier '"$src"'/tests/mutants/10_mmul_block.cmake '"$build"'/exercises/10_mmul_block/mutants; do if ls -A $f 2>/dev/null | grep -q . \&\& { [ -d $f ] || [ -s $f ]; }; then echo LEAK:$f; fi; done'
solved oscar && inject oscar 'std::system("'"$probe"'"); std::fflush(stdout); for (const char* f : {"/proc/self/environ", "/proc/1/environ", "/proc/1/cmdline"}) { std::FILE* in = std::fopen(f, "r"); if (!in) continue; for (int ch; (ch = std::fgetc(in)) != EOF;) std::putchar(ch ? ch : 10); std::fclose(in); } std::system("ls -la '"$out"' '"$out"'/evidence; cat /proc/[0-9]*/environ");'
sed -i '1i #include <cstdio>' "$subs/oscar/exercises/02_vadd/vadd_host.cpp"
# Answers twice: bytes of its own on the reply pipe (a frame header and junk), then the real reply.
solved paul && inject paul '{ const char junk[16] = {8, 0, 0, 0, 0, 0, 0, 0, 87, 66, 77, 49, 106, 117, 110, 107}; (void)::write(4, junk, 16); }'
sed -i '1i #include <unistd.h>' "$subs/paul/exercises/02_vadd/vadd_host.cpp"
# A kernel that writes far outside its buffers (on PoCL, native code in the runner's process).
solved rick && sed -i 's/c\[i\] = a\[i\] + b\[i\];/c[i] = a[i] + b[i]; c[i + 40000000] = 1.0f; c[i - 40000000] = 1.0f;/' \
    "$subs/rick/exercises/02_vadd/vadd.cl"
# A kernel that races but is right on PoCL (each work-item scribbles on its neighbour's element,
# which the neighbour then overwrites), and host code that switches the simulator's race check off
# in its own process before main(): the kernels are race-checked again in a runner of ours.
solved rhea && sed -i 's/c\[i\] = a\[i\] + b\[i\];/if (get_local_id(0) + 1 < get_local_size(0) \&\& i + 1 < count) c[i + 1] = -1.0f; c[i] = a[i] + b[i];/' \
    "$subs/rhea/exercises/02_vadd/vadd.cl"
printf '\n#include <cstdlib>\nnamespace { const bool quiet = [] { ::unsetenv("OCLGRIND_DATA_RACES"); ::unsetenv("OCLGRIND_UNINITIALIZED"); return true; }(); }\n' \
    >> "$subs/rhea/exercises/02_vadd/vadd_host.cpp"
# The same racy kernel, and host code that tries to put a clean one in its place before the race
# pass reads it (the pass runs later, beside the next tests): the kernels it reads are a copy
# owned by root that the student's user may read and nobody may change.
solved sven && cp "$subs/rhea/exercises/02_vadd/vadd.cl" "$subs/sven/exercises/02_vadd/vadd.cl"
cat >> "$subs/sven/exercises/02_vadd/vadd_host.cpp" <<'CPP'
#include <cstdio>
#include <cstdlib>
#include <string>
namespace {
const bool swapped = [] {
    const char* dir = std::getenv("WORKBOOK_KERNEL_DIR");
    if (!dir) return false;
    const std::string file = std::string(dir) + "/vadd.cl";
    std::remove(file.c_str());
    std::FILE* out = std::fopen(file.c_str(), "w");
    std::puts(out ? "sven: SWAPPED the kernel" : "sven: the kernel could not be replaced");
    if (!out) return false;
    std::fputs("__kernel void vadd(__global const float* a, __global const float* b, __global float* c, "
               "const unsigned int n) { size_t i = get_global_id(0); if (i < n) c[i] = a[i] + b[i]; }\n", out);
    return std::fclose(out) == 0;
}();
}  // namespace
CPP

# A kernel cache shared by a submission's runners (issue 60): exercise 01's host code builds a
# right vadd and copies its compiled program over every program in its kernel cache that names
# vadd, among them the one prebuilt from this student's wrong 02 kernel. Each runner's cache is
# its own copy: 02's graded run on the device runs the wrong kernel the race pass reads, and fails.
solved uma && wrong_kernel uma
cat >> "$subs/uma/exercises/01_device_info/device_info.cpp" <<'CPP'
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
namespace {
const int uma_planted = [] {
    namespace fs = std::filesystem;
    const char* top = std::getenv("POCL_CACHE_DIR");
    if (!top) return -1;
    int n = 0;
    try {
        const auto programs = [&] {
            std::set<fs::path> s;
            for (const auto& d : fs::recursive_directory_iterator(top))
                if (d.path().filename() == "program.bc") s.insert(d.path());
            return s;
        };
        const auto before = programs();
        const cl::Context context(CL_DEVICE_TYPE_DEFAULT);
        cl::Program(context, "__kernel void vadd(__global const float* a, __global const float* b, __global float* c, "
                             "const unsigned int n) { size_t i = get_global_id(0); if (i < n) c[i] = a[i] + b[i]; }")
            .build();
        fs::path good;
        for (const auto& p : programs())
            if (!before.count(p)) good = p;
        for (const auto& p : before) {
            std::ifstream in(p, std::ios::binary);
            const std::string code((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            if (good.empty() || code.find("vadd") == std::string::npos) continue;
            fs::remove_all(p.parent_path() / "vadd");
            fs::copy_file(good, p, fs::copy_options::overwrite_existing);
            ++n;
        }
    } catch (const std::exception& e) {
        std::printf("uma: %s\n", e.what());
    }
    std::printf("uma: planted %d\n", n);
    std::fflush(stdout);
    return n;
}();
}  // namespace
CPP

# Bytes that once stopped the whole class (invalid UTF-8 in a JSON writer) and a terminal escape.
solved sam && inject sam 'std::fputs("\\377\\033]0;pwned\\007 and \\302\\233 2J", stdout);'
sed -i '1i #include <cstdio>' "$subs/sam/exercises/02_vadd/vadd_host.cpp"
# Lines that once overflowed the stack of a recursive matcher in the grader's own process (a
# regex on the kernel's lines, on the build log, on the output): 200,000 blanks in the kernel and
# in what the host code prints after "test cases:". Legal, and graded as usual.
solved wes && printf '%200000s\n' '' >> "$subs/wes/exercises/02_vadd/vadd.cl"
inject wes 'std::printf("test cases:%s9 \\n", std::string(200000, (char)32).c_str());'
sed -i '1i #include <cstdio>\n#include <string>' "$subs/wes/exercises/02_vadd/vadd_host.cpp"

# A kernel that tests __OPTIMIZE__ (true on an optimising device build, false under a simulator
# build without optimisation): in #if it reads the same for every build, since the grader's
# runner preprocesses the kernel itself with fixed macros (tim: graded as usual); pasted together
# with ## and used as a value, no text rule sees it, and the build refuses it (tom).
solved tim && sed -i '1i #ifndef __OPTIMIZE__\n#define TWO_PROGRAMS 1\n#endif' "$subs/tim/exercises/02_vadd/vadd.cl"
solved tom && sed -i '1i #define CAT(a, b) a##b\nconstant int two_programs = CAT(__OPTI, MIZE__);' "$subs/tom/exercises/02_vadd/vadd.cl"

# Budgets for a submission as a whole (the class runs with --memory-mib 1536 --disk-mib 256):
# four processes of 600 MiB each (each under every per-process limit), then the right work.
solved hugo && inject hugo 'static bool once = false; if (!once) { once = true; pid_t kids[4]; for (int k = 0; k < 4; ++k) if ((kids[k] = ::fork()) == 0) { char* m = static_cast<char*>(std::malloc(600u << 20)); if (m) std::memset(m, 1, 600u << 20); ::sleep(1); ::_exit(0); } for (int k = 0; k < 4; ++k) { int st = 0; ::waitpid(kids[k], \&st, 0); std::printf("hugo child %d: %s %d\\n", k, WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st)); } std::fflush(stdout); }'
sed -i '1i #include <unistd.h>\n#include <sys/wait.h>\n#include <cstring>\n#include <cstdio>\n#include <cstdlib>' "$subs/hugo/exercises/02_vadd/vadd_host.cpp"
# A 2 MB archive of 6 files of 60 MiB (each under the per-file limit, together over the quota),
# and one of 100,000 empty files.
python3 - "$subs" <<'PY'
import sys, tarfile, zipfile, io
subs = sys.argv[1]
with zipfile.ZipFile(f"{subs}/gus.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for k in range(6):
        with z.open(f"exercises/02_vadd/blob{k}.bin", "w", force_zip64=True) as f:
            chunk = bytes(1 << 20)
            for _ in range(60): f.write(chunk)
with tarfile.open(f"{subs}/ida.tar.gz", "w:gz") as t:
    for k in range(100000):
        t.addfile(tarfile.TarInfo(f"many/f{k}"), io.BytesIO())
PY
# Names a report must not trust: a newline, and a right-to-left override (U+202E).
solved "nell"$'\n'"x" && solved "tess"$'\xe2\x80\xae'"exe"

# Whole copies of the workbook, as a student submits the folder they cloned and worked in: the
# starters in exercises/, the solutions in solutions/, the CLI's snapshot of the starters in
# .workbook/ and a build folder. Only exercises/ is the student's (grading/locate.hpp).
whole() {
    local d="$subs/$1"
    mkdir -p "$d"
    cp -r "$src/exercises" "$src/solutions" "$src/course.toml" "$src/README.md" "$d/"
    mkdir -p "$d/.workbook/pristine" "$d/build/exercises/02_vadd"
    cp -r "$src/exercises/01_device_info" "$src/exercises/02_vadd" "$d/.workbook/pristine/"
    cp "$src/solutions/02_vadd/vadd.cl" "$d/build/exercises/02_vadd/"
}
whole_solved() {
    whole "$1"
    cp "$src/solutions/01_device_info/"* "$subs/$1/exercises/01_device_info/"
    cp "$src/solutions/02_vadd/"* "$subs/$1/exercises/02_vadd/"
}
whole newbie                                                   # untouched starters: zero
whole_solved olga                                              # solved in place: full marks
whole_solved pete && sed -i 's/c\[i\] = a\[i\] + b\[i\];/c[i] = a[i] - b[i];/' "$subs/pete/exercises/02_vadd/vadd.cl"
whole_solved quinn && mkdir -p "$subs/quinn/old/exercises/02_vadd" &&  # two candidate copies
    cp "$src/exercises/02_vadd/vadd.cl" "$subs/quinn/old/exercises/02_vadd/"
whole_solved rosa && (cd "$subs" && zip -qr rosa.zip rosa) && rm -rf "$subs/rosa"   # a zip of the folder
grep -q 'c\[i\] = a\[i\] - b\[i\];' "$subs/pete/exercises/02_vadd/vadd.cl" || fail "pete's planted bug was not planted"

# One identity per submission: a folder and a zip of the same name are refused before grading.
mkdir -p "$work/twins/zed" && touch "$work/twins/zed/notes.txt" && (cd "$work/twins" && zip -qr zed.zip zed)
if "$wb" grade "$work/twins" --out "$work/twins-out" --only 01 > "$work/twins.log" 2>&1; then fail "two submissions named zed were graded"; fi
grep -q 'two submissions are both called "zed": zed and zed.zip\|two submissions are both called "zed": zed.zip and zed' "$work/twins.log" ||
    fail "the duplicate name is not explained: $(cat "$work/twins.log")"
echo "ok: zed/ and zed.zip are refused, both named"

# A submissions folder nobody else may enter (as the class server keeps its checks): the grader
# hands each sandbox its own copy, so it is graded as any other.
if [ "$mode" = sandbox ]; then
    mkdir -p "$work/private/inner/una/exercises" && cp -r "$src/solutions/02_vadd" "$work/private/inner/una/exercises/"
    chmod 700 "$work/private"
    "$wb" grade "$work/private/inner" --out "$work/private-out" --only 02 > "$work/private.log" 2>&1 ||
        fail "a submissions folder nobody else may enter was not graded: $(tail -5 "$work/private.log")"
    grep -qx "una,una,2.00,2.00,2.00" "$work/private-out/gradebook.csv" ||
        fail "una's solved 02 in a private folder: $(cat "$work/private-out/gradebook.csv")"
    chmod 755 "$work/private"
    echo "ok: a submissions folder nobody else may enter is graded, full marks"
fi

# Work shared between submissions (a clean race pass kept by kernel text, the instructor's PoCL
# cache, the checkers' expected results) must never carry a grade across: two identical solved
# kernels share one race pass; a third that drops a barrier, otherwise the same, is not passed.
# Kernels built ahead of the tests (kernel-prebuild) change no outcome: one that does not build
# is still reported by the test, with its file and line.
if [ "$mode" = sandbox ]; then
    for who in ann ben cat dan; do
        mkdir -p "$work/shared/$who/exercises" && cp -r "$src/solutions/09_mmul_col_local" "$work/shared/$who/exercises/"
    done
    sed -i '/everyone is done with this column/d' "$work/shared/cat/exercises/09_mmul_col_local/mmul.cl"
    echo "this is not OpenCL C;" >> "$work/shared/dan/exercises/09_mmul_col_local/mmul.cl"
    [ "$(grep -c barrier "$work/shared/cat/exercises/09_mmul_col_local/mmul.cl")" -lt \
      "$(grep -c barrier "$src/solutions/09_mmul_col_local/mmul.cl")" ] || fail "cat's barrier was not removed"
    "$wb" grade "$work/shared" --out "$work/shared-out" --only 09 > "$work/shared.log" 2>&1 ||
        fail "grading the shared-work class failed: $(cat "$work/shared.log")"
    grep -qx "ann,ann,3.00,3.00,3.00" "$work/shared-out/gradebook.csv" && grep -qx "ben,ben,3.00,3.00,3.00" "$work/shared-out/gradebook.csv" ||
        fail "the two solved copies are not full marks: $(cat "$work/shared-out/gradebook.csv")"
    grep -qx "cat,cat,0.00,0.00,3.00" "$work/shared-out/gradebook.csv" || fail "the kernel without its barrier was passed: $(cat "$work/shared-out/gradebook.csv")"
    grep -qx "dan,dan,0.00,0.00,3.00" "$work/shared-out/gradebook.csv" || fail "a kernel that does not build was passed: $(cat "$work/shared-out/gradebook.csv")"
    grep -q 'mmul.cl:[0-9]*:[0-9]*: error' "$work/shared-out/results/dan.json" ||
        fail "the build error is not reported with its line: $(head -c 1500 "$work/shared-out/results/dan.json")"
    grep -q '"race pass, same kernels as before"' "$work/shared-out/phases.json" || fail "no race pass was shared: $(cat "$work/shared-out/phases.json")"
    grep -q '"seed kernel cache"' "$work/shared-out/phases.json" && grep -q '"prebuild kernels (one process)"' "$work/shared-out/phases.json" ||
        fail "kernels were not built ahead (the instructor's cache for ann and ben, kernel-prebuild for cat and dan): $(cat "$work/shared-out/phases.json")"
    grep -q "where the time went" "$work/shared.log" || fail "no phase table at the end of the run"
    # Processor seconds per phase: four graded runs of a matmul rung and a race pass cannot cost
    # nothing (a reaping that lost the children's usage would read 0 here).
    python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
assert p["graded tests"]["cpu_seconds"] > 0.5 and p["race pass (Oclgrind)"]["cpu_seconds"] > 0.5, p' \
        "$work/shared-out/phases.json" || fail "no processor seconds in the phase table: $(cat "$work/shared-out/phases.json")"
    echo "ok: identical kernels share a clean race pass; a kernel without its barrier, otherwise the same, gets 0"
fi

# No silent grade without the race pass: Oclgrind hidden, grading refuses to start and says why;
# with --no-race-check it grades and every report says the pass was off.
if WORKBOOK_OCLGRIND=/nonexistent "$wb" grade "$work/twins" --out "$work/norace-out" --only 02 > "$work/norace.log" 2>&1; then
    fail "grading started without Oclgrind"
fi
grep -q "the race pass cannot run: WORKBOOK_OCLGRIND names /nonexistent" "$work/norace.log" &&
    grep -q -- "--no-race-check" "$work/norace.log" || fail "the refusal does not give the fix: $(cat "$work/norace.log")"
mkdir -p "$work/norace/una/exercises" && cp -r "$src/solutions/02_vadd" "$work/norace/una/exercises/"
WORKBOOK_OCLGRIND=/nonexistent "$wb" grade "$work/norace" --out "$work/norace-out" --only 02 --no-race-check \
    > "$work/norace.log" 2>&1 || fail "grading with --no-race-check failed: $(cat "$work/norace.log")"
grep -q "race pass off" <(head -n 1 "$work/norace-out/gradebook.csv") || fail "the gradebook's header does not say the race pass was off"
grep -q "race pass off (--no-race-check)" "$work/norace-out/results/una.json" "$work/norace-out/summary.json" ||
    fail "the reports do not say the race pass was off"
echo "ok: no grade without the race pass unless --no-race-check, and then every report says so"

# A roster for two of them.
printf 'submission,student id\nalice,s001\nbob,s002\n' > "$work/roster.csv"

if [ "$mode" = nosandbox ]; then
    # The verdict attacks, and a correct control, without namespaces.
    for d in "$subs"/*; do
        case "$(basename "$d")" in alice|mallory|nina|olivia|oscar|paul|rhea|rick|sam) ;; *) rm -rf "$d" ;; esac
    done
    chmod 700 "$subs"
    "$wb" grade "$subs" --out "$out" --only 01 --only 02 --jobs 2 --timeout 20 --no-sandbox > "$work/nosandbox.log" 2>&1 ||
        { cat "$work/nosandbox.log"; fail "grading without namespaces failed"; }
    cat "$out/gradebook.csv"
    for row in "alice,alice,1.00,2.00,3.00,3.00" "mallory,mallory,1.00,0.00,1.00,3.00" "nina,nina,1.00,0.00,1.00,3.00" \
               "olivia,olivia,1.00,0.00,1.00,3.00" "oscar,oscar,1.00,2.00,3.00,3.00" "paul,paul,1.00,1.00,2.00,3.00" \
               "rhea,rhea,1.00,0.00,1.00,3.00" "rick,rick,1.00,0.00,1.00,3.00" "sam,sam,1.00,2.00,3.00,3.00"; do
        grep -qx "$row" "$out/gradebook.csv" || fail "without namespaces, row \"$row\" missing"
        echo "ok: $row (no namespaces)"
    done
    seed=$(sed -n 's/^seed = //p' "$out/secret.toml")
    grep -rq "$seed" "$out/results" && fail "the secret seed leaked into a student's results"
    grep -q "WORKBOOK_EVIDENCE_\|WORKBOOK_RUNNER\|CTEST_" "$out/results/oscar.json" && fail "oscar saw the grader's environment"
    grep -q "alice" "$out/results/oscar.json" && fail "oscar listed another submission or the output folder"
    grep -q "NO namespaces" "$out/results/oscar.json" || fail "the report does not say which isolation was used"
    # Without namespaces the build is readable (README: chmod o-rwx): the probe must see it here,
    # or its silence under the sandbox proves nothing.
    grep -q "LEAK:" "$out/results/oscar.json" || fail "oscar's probe found nothing even without namespaces"
    echo "PASS: grading without namespaces"
    exit 0
fi
args=(grade "$subs" --out "$out" --only 01 --only 02 --jobs 2 --timeout 20 --roster "$work/roster.csv"
      --memory-mib 1536 --disk-mib 256)
grade() { "$wb" "${args[@]}"; }

# Kill a run part-way (the grader itself, with SIGKILL), then resume it.
"$wb" "${args[@]}" > "$work/first.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
    [ -f "$out/journal.jsonl" ] && [ "$(wc -l < "$out/journal.jsonl")" -ge 3 ] && break
    sleep 0.2
done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
done_before=$(wc -l < "$out/journal.jsonl")
echo "killed after $done_before graded submission(s)"
# As if the kill had landed between a journal line and the clean-up of that submission's scratch
# folder: the resumed run must clear it (the final check finds work/ empty).
mkdir -p "$out/work/zz_killed_before_clean_up/tmp" && touch "$out/work/zz_killed_before_clean_up/tmp/file"
# As if the kill had landed in the middle of an append: a torn last record.
printf '{"name":"kate","student":"kate","exercises":[{"id":"01","sta' >> "$out/journal.jsonl"
grade > "$work/second.log" 2>&1 || { cat "$work/second.log"; fail "the resumed run failed"; }
grep -q "dropped a torn last record" "$work/second.log" || fail "the torn journal record was not noticed"
python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$out/journal.jsonl" ||
    fail "the journal holds a damaged record after resuming"
grep -q "already graded (journal)" "$work/second.log" || fail "the resumed run did not read the journal"
[ -z "$(ls -A "$out/kernels" 2>/dev/null)" ] || fail "copies of kernels left behind after resuming: $(ls "$out/kernels")"
cat "$out/gradebook.csv"

expected_rows=()
expect_row() {
    grep -qx "$1" "$out/gradebook.csv" || fail "gradebook row \"$1\" missing; gradebook:\n$(cat "$out/gradebook.csv")"
    expected_rows+=("$1")
    echo "ok: $1   ($2)"
}
expect_row "s001,alice,1.00,2.00,3.00,3.00" "correct: full marks"
expect_row "s002,bob,0.00,0.00,0.00,3.00" "starters: zero"
expect_row "carol,carol,1.00,0.00,1.00,3.00" "build failure costs only that exercise"
expect_row "dave,dave,1.00,1.00,2.00,3.00" "exit(0) early: the runner ended before its reply, the host case fails (the kernel case counts)"
expect_row "eve,eve,1.00,1.00,2.00,3.00" "a printed fake success counts for nothing (the kernel case counts)"
expect_row "frank,frank,1.00,1.00,2.00,3.00" "a hang fails its case (the runner is stopped; the kernel case counts)"
expect_row "gina,gina,1.00,1.00,2.00,3.00" "a crash in the host case: the kernel case still counts"
expect_row "stella,stella,1.00,0.00,1.00,3.00" "stalls only under the race pass: past the submission's race budget, 02 scores 0"
grep -q "race passes share 40 s in all" "$out/results/stella.json" || fail "stella's report does not name the race budget"

# A fork bomb's 02 score depends on the machine: the harness either finishes its kernel case
# before the bomb fills the process limit (1.00) or is killed at the time limit (0.00). What
# matters is asserted below: it is contained, graded, and leaves no process behind.
grep -qxE "hank,hank,1\.00,(1\.00,2\.00|0\.00,1\.00),3\.00" "$out/gradebook.csv" ||
    fail "hank's row: $(grep hank "$out/gradebook.csv")"
echo "ok: a fork bomb is contained: $(grep hank "$out/gradebook.csv")"
expect_row "ivy,ivy,1.00,2.00,3.00,3.00" "an output flood is capped (and the work is right)"
expect_row "jack,jack,1.00,2.00,3.00,3.00" "forged files land nowhere (and the work is right)"
expect_row "kate,kate,1.00,0.00,1.00,3.00" "a hard-coded kernel fails; the edited test is ignored"
expect_row "liam,liam,1.00,0.00,1.00,3.00" "a missing exercise"

expect_row "mallory,mallory,1.00,0.00,1.00,3.00" "a static initialiser that forges a verdict and exits: nothing"
expect_row "nina,nina,1.00,0.00,1.00,3.00" "an atexit/destructor forgery: nothing"
expect_row "olivia,olivia,1.00,0.00,1.00,3.00" "a student definition of compare() (link-time interposition): nothing"
expect_row "oscar,oscar,1.00,2.00,3.00,3.00" "snooping finds no secret (and the work is right)"
expect_row "paul,paul,1.00,1.00,2.00,3.00" "answering twice fails that case"
expect_row "rick,rick,1.00,0.00,1.00,3.00" "a kernel writing far outside its buffers"
expect_row "rhea,rhea,1.00,0.00,1.00,3.00" "a racy kernel whose host code turns the race check off in its own process"
grep -q "Write-write data race" "$out/results/rhea.json" || fail "rhea's race is not reported: $(head -c 1500 "$out/results/rhea.json")"
expect_row "sven,sven,1.00,0.00,1.00,3.00" "host code that replaces its kernel file before the race pass reads it"
grep -q "SWAPPED" "$out/results/sven.json" && fail "sven replaced the kernel file the race pass reads"
grep -q "could not be replaced" "$out/results/sven.json" || fail "sven's attempt did not run: $(head -c 1500 "$out/results/sven.json")"
expect_row "uma,uma,1.00,0.00,1.00,3.00" "exercise 01's host code plants a compiled kernel for 02 in its kernel cache"
grep -q "uma: planted [1-9]" "$out/results/uma.json" || fail "uma's planting did not run: $(head -c 1500 "$out/results/uma.json")"
# The device run itself must fail (before issue 60's fix it passed on the planted program and
# only the Oclgrind rerun of the source failed the exercise).
grep -q "test cases:  2 |  2 passed" "$out/results/uma.json" && fail "uma's wrong 02 kernel passed on the device: a planted program ran"
for who in oscar mallory nina; do
    grep -q "WORKBOOK_EVIDENCE_\|WORKBOOK_RUNNER\|CTEST_\|IS_SANDBOX" "$out/results/$who.json" &&
        fail "$who saw the checker's or the grader's environment"
done
grep -q "LEAK:" "$out/results/oscar.json" && fail "oscar read what the build holds of the solutions: $(grep -o 'LEAK:[^ \\]*' "$out/results/oscar.json")"
grep -q "replied out of turn\|not a message\|malformed\|cut short" "$out/results/paul.json" ||
    fail "paul's double answer is not explained: $(head -c 1500 "$out/results/paul.json")"
[ -e "$out/evidence-forged" ] && fail "a forged evidence file landed in the output folder"

expect_row "sam,sam,1.00,2.00,3.00,3.00" "invalid UTF-8 and escape sequences in the output: the class is graded"
grep -q '\\\\x1b\]0;pwned' "$out/results/sam.json" || fail "sam's escape sequence is not shown escaped"
LC_ALL=C grep -qP '\x1b|\xff' "$out/results/sam.json" "$out/students/sam.html" && fail "a raw control byte reached a report"

expect_row "wes,wes,1.00,2.00,3.00,3.00" "200,000 blanks on one line of the kernel and of the output: graded as usual"
expect_row "tim,tim,1.00,2.00,3.00,3.00" "a kernel that tests __OPTIMIZE__ in #if: one program for every build, graded"
expect_row "tom,tom,1.00,0.00,1.00,3.00" "a kernel that pastes __OPTIMIZE__ together and uses its value is refused by the build"
grep -q "vadd.cl:2: uses __OPTIMIZE__, a name reserved to the compiler" "$out/results/tom.json" ||
    fail "tom's refusal is not explained: $(grep -o '.\{0,200\}__OPTIMIZE__.\{0,200\}' "$out/results/tom.json" | head -3)"

budget=$(grep -m1 '^budget' "$work/second.log" || true)
echo "$budget"
if grep -q "cgroup v" <<<"$budget"; then
    expect_row "hugo,hugo,1.00,2.00,3.00,3.00" "four processes over the submission's memory: the budget stops some (and the work is right)"
    grep -q "hugo child [0-3]: signal 9" "$out/results/hugo.json" || fail "no process of hugo was stopped: $(grep -o 'hugo child[^\\]*' "$out/results/hugo.json")"
    grep -q "memory budget (1536 MiB for all its processes) ran out" "$out/results/hugo.json" || fail "hugo's report does not say the budget ran out"
else
    echo "SKIP: no cgroup here for a submission's memory ($budget): hugo's budget is not checked"
fi
if grep -q "(tmpfs)" <<<"$budget"; then
    grep -q "^unmounted $out/work/" "$work/second.log" || fail "the resumed run did not reclaim the killed run's scratch mounts"
    grep -q "scratch 256 MiB and 20000 files (tmpfs)" "$out/results/alice.json" || fail "the report does not state the budget"
else
    echo "SKIP: no tmpfs quota here ($budget): the archives are measured after unpacking instead"
fi
expect_row "gus,gus,0.00,0.00,0.00,3.00" "an archive that expands past the disk quota: too large"
expect_row "ida,ida,0.00,0.00,0.00,3.00" "an archive of 100,000 files: too large"
for who in gus ida; do
    grep -q '"output": "too large: the submission does not fit its quota of 256 MiB and 20000 files' "$out/results/$who.json" ||
        fail "$who's report does not say why: $(head -c 1500 "$out/results/$who.json")"
done
expect_row "nell_x,nell_x,1.00,2.00,3.00,3.00" "a newline in the name: graded under a safe name"
expect_row "tess___exe,tess___exe,1.00,2.00,3.00,3.00" "a right-to-left override in the name: graded under a safe name"
grep -q 'graded as \\"nell_x\\": the file name \\"nell\\nx\\"' "$out/results/nell_x.json" || fail "nell's renaming is not said"
[ "$(wc -l < "$out/gradebook.csv")" -eq "$(($(find "$subs" -mindepth 1 -maxdepth 1 -printf x | wc -c) + 1))" ] || fail "the gradebook has a row too many or too few"
LC_ALL=C grep -qP '\xe2\x80\xae' "$out/gradebook.csv" "$out/report.html" && fail "the override character reached the gradebook"
[ -z "$(ls "$out/work")" ] || fail "scratch folders were left behind: $(ls "$out/work")"
grep -q "$out/work" /proc/mounts && fail "a scratch tmpfs is still mounted"

expect_row "newbie,newbie,0.00,0.00,0.00,3.00" "a whole untouched copy: zero (solutions/, .workbook/, build/ ignored)"
expect_row "olga,olga,1.00,2.00,3.00,3.00" "a whole copy solved in exercises/: full marks"
expect_row "pete,pete,1.00,0.00,1.00,3.00" "a whole copy with one planted bug loses exactly that exercise"
expect_row "quinn,quinn,1.00,0.00,1.00,3.00" "two copies of a file: that exercise is ambiguous"
expect_row "rosa,rosa,1.00,2.00,3.00,3.00" "a zip of the whole folder: as the folder"
grep -q "ambiguous: two copies of vadd.cl: exercises/02_vadd/vadd.cl and old/exercises/02_vadd/vadd.cl" \
    "$out/results/quinn.json" || fail "quinn's ambiguity is not explained: $(head -c 1500 "$out/results/quinn.json")"
grep -q "vadd.cl graded from rosa/exercises/02_vadd/vadd.cl" "$out/results/rosa.json" ||
    fail "rosa's report does not say which file was graded"
grep -q "vadd.cl graded from exercises/02_vadd/vadd.cl" "$out/results/newbie.json" ||
    fail "newbie's report does not say which file was graded"

[ -e "$src/PWNED" ] && fail "a submission wrote into the instructor's tree"
grep -q "often rounded up" "$out/results/jack.json" && fail "a submission read the instructor's solution"
grep -q "alice" "$out/results/jack.json" && fail "a submission saw the other submissions"
[ "$(stat -c %s "$out/results/ivy.json")" -lt 100000 ] || fail "ivy's flood was not capped in her results"
grep -q "ignored (differs from the instructor's copy): exercises/02_vadd/test.cpp" "$out/results/kate.json" ||
    fail "kate's edited test.cpp is not reported"
grep -q "not submitted" "$out/results/liam.json" || fail "liam's missing exercise is not named"
grep -q "build failed" "$out/results/carol.json" || fail "carol's build failure is not reported"
grep -q "did not answer within" "$out/results/frank.json" || fail "frank's hang is not reported as a timeout"
seed=$(sed -n 's/^seed = //p' "$out/secret.toml")
grep -rq "$seed" "$out/results" && fail "the secret seed leaked into a student's results"
grep -rqi "$(printf '%x' "$seed")" "$out/results" && fail "the secret seed leaked in hex"
pgrep -f "sleep 613" >/dev/null && fail "hank's child outlived the sandbox"
for f in summary.json report.html students/alice.html results/alice.json; do
    [ -s "$out/$f" ] || fail "$f was not written"
done
echo "ok: nothing escaped; every output written"

# The resumed gradebook holds exactly the rows asserted above, the header and hank's (whose score
# depends on timing): the submissions graded before the kill came out as a run from scratch gives
# them (a second whole run to compare with took a quarter of this test's time and said no more).
unexpected=$(grep -vxF -f <(printf '%s\n' "${expected_rows[@]}") "$out/gradebook.csv" | grep -v '^student,submission\|^hank,' || true)
[ -z "$unexpected" ] || fail "gradebook rows no check asserted: $unexpected"
echo "ok: every row of the killed-and-resumed gradebook is the one asserted"
# The Gradescope package, run in a simulated /autograder with a flat upload of exercise 02.
ag="$work/autograder"
mkdir -p "$ag/source" "$ag/submission"
"$wb" gradescope-package --out "$work/autograder.zip" > /dev/null
unzip -q "$work/autograder.zip" -d "$ag/source"
[ -x "$ag/source/run_autograder" ] && [ -x "$ag/source/setup.sh" ] || fail "the package lacks its scripts"
cp "$src/solutions/02_vadd/"* "$ag/submission/"
AUTOGRADER_ROOT="$ag" WORKBOOK_BUILD="$build" WORKBOOK_GRADE_ARGS="--only 02 --quiet" "$ag/source/run_autograder" \
    > "$work/gradescope.log" 2>&1 || { cat "$work/gradescope.log"; fail "run_autograder failed"; }
grep -q '"score": 2.0' "$ag/results/results.json" || fail "Gradescope results: $(head -c 600 "$ag/results/results.json")"
grep -q '"max_score": 2.0' "$ag/results/results.json" || fail "Gradescope max_score"
echo "ok: the Gradescope package grades a flat upload in a simulated /autograder"
# As its setup.sh leaves it: the reference runs made once, which every run_autograder starts from.
mkdir -p "$work/no-subs"
"$wb" grade "$work/no-subs" --out "$ag/prepared" --references-only --only 02 > "$work/prepare.log" 2>&1 ||
    fail "--references-only: $(cat "$work/prepare.log")"
rm -rf "$ag/results"
AUTOGRADER_ROOT="$ag" WORKBOOK_BUILD="$build" WORKBOOK_GRADE_ARGS="--only 02" "$ag/source/run_autograder" \
    > "$work/gradescope2.log" 2>&1 || { cat "$work/gradescope2.log"; fail "run_autograder from the prepared runs failed"; }
grep -q "reference runs: 1 of 1 kept from an earlier run" "$work/gradescope2.log" ||
    fail "run_autograder ran the references again: $(cat "$work/gradescope2.log")"
grep -q '"score": 2.0' "$ag/results/results.json" || fail "Gradescope results from the prepared runs: $(head -c 600 "$ag/results/results.json")"
echo "ok: run_autograder starts from the reference runs setup.sh made once, same score"
echo "PASS: grading"
