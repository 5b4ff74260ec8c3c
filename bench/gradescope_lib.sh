# Sourced by bench/gradescope_limits.sh and bench/gradescope_podman.sh: the submission they grade
# and the summary they print.

# gradescope_submission SRC ROOT: every solution, laid out as Gradescope's /autograder/submission.
gradescope_submission() {
    local src=$1 root=$2 d ex
    mkdir -p "$root/submission/exercises" "$root/results"
    for d in "$src"/solutions/*/; do
        ex=$(basename "$d")
        mkdir -p "$root/submission/exercises/$ex"
        cp "$d"* "$root/submission/exercises/$ex/"
    done
}

# gradescope_summary RESULTS_JSON START END STATUS WHAT: the wall time, the score, each test short of
# its points.
gradescope_summary() {
    python3 - "$@" <<'PY'
import json, sys
path, start, end, status, what = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
print(f"{what}: exit {status}, {end - start:.0f} s wall")
try:
    r = json.load(open(path))
except Exception as e:
    print(f"no results.json: {e}"); sys.exit(1)
score = r.get("score"); most = sum(t.get("max_score", 0) for t in r.get("tests", []))
print(f"score {score} of {most}")
for t in r.get("tests", []):
    if t.get("score") != t.get("max_score"):
        print(f"  {t.get('name')}: {t.get('score')}/{t.get('max_score')} {t.get('status', '')}: {t.get('output', '')[-300:]!r}")
PY
}
