#!/bin/bash
# One whole solved workbook through the Gradescope package's run_autograder inside the course image
# (scripts/image.sh), in a container held to Gradescope's default limits: podman --cpus 0.5
# --memory 768m (no swap beyond it). As Gradescope does: the package's setup step first, without
# limits (the solutions' reference runs once, into /autograder/prepared), then run_autograder on the
# submission in a fresh container with the limits. Prints the wall time, the score and the grader's
# phase table. Run as root with podman and the image built.
#   bench/gradescope_podman.sh [IMAGE] [CPUS] [MEMORY_MIB]
# IMAGE: default opencl-workbook:<short commit of this checkout>, else opencl-workbook:latest.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
engine=${WORKBOOK_CONTAINER_ENGINE:-podman}
image=${1:-opencl-workbook:$(git -C "$src" rev-parse --short=12 HEAD)}
cpus=${2:-0.5} mem=${3:-768}
command -v "$engine" >/dev/null || { echo "bench/gradescope_podman.sh: $engine is not installed (apt-get install podman)" >&2; exit 2; }
if ! "$engine" image inspect "$image" >/dev/null 2>&1; then
    [ -z "${1:-}" ] && "$engine" image inspect opencl-workbook:latest >/dev/null 2>&1 && image=opencl-workbook:latest ||
        { echo "bench/gradescope_podman.sh: no image $image: build it with scripts/image.sh (as root)" >&2; exit 2; }
fi
. "$src/scripts/container_engine.sh"
container_start "$engine" "$image" || { echo "bench/gradescope_podman.sh: $container_error" >&2; exit 2; }
[ -z "$container_note" ] || echo "note: $container_note"

work=$(mktemp -d /tmp/gradescope-podman.XXXXXX)
root="$work/autograder"
. "$src/bench/gradescope_lib.sh"
gradescope_submission "$src" "$root"
# The image's own source and build stand for the package's /autograder/source and its build. The
# build was configured in /workbook (its compile lines, which grade reuses for the students' host
# files, name it): the course is put back there, as the image's entrypoint does for a student.
ln -s /workbook "$root/source"
course='rmdir /workbook && ln -s /opt/workbook/src /workbook &&'
in_image=("${engine_cmd[@]}" run --rm "${run_opts[@]}" -v "$root:/autograder" --entrypoint /bin/bash "$image" -c)

echo "image $image, of commit $("${engine_cmd[@]}" run --rm "${run_opts[@]}" --entrypoint /bin/cat "$image" /opt/workbook/commit)"
# Gradescope's setup.sh step, when it builds the autograder's image: no limits.
# As the package's setup.sh: --no-sandbox where the container refuses bubblewrap's namespaces.
"${in_image[@]}" "$course"' mkdir -p /tmp/none && sandbox= && { bwrap --ro-bind / / true 2>/dev/null || sandbox=--no-sandbox; } &&
    workbook --root /workbook --build-dir /opt/workbook/build grade /tmp/none \
    --out /autograder/prepared --references-only -q $sandbox' > "$work/setup.log" 2>&1 || { cat "$work/setup.log"; exit 1; }
echo "setup: reference runs made once in /autograder/prepared"

echo "limits: --cpus $cpus --memory ${mem}m; submission: every solution"
start=$(date +%s.%N)
status=0
"${engine_cmd[@]}" run --rm "${run_opts[@]}" --cpus "$cpus" --memory "${mem}m" --memory-swap "${mem}m" \
    -v "$root:/autograder" -e WORKBOOK_BUILD=/opt/workbook/build --entrypoint /bin/bash "$image" \
    -c "$course exec bash /workbook/grading/gradescope/run_autograder" > "$work/run.log" 2>&1 || status=$?
end=$(date +%s.%N)
tail -25 "$work/run.log"
gradescope_summary "$root/results/results.json" "$start" "$end" "$status" "run_autograder in the container"
echo "log: $work/run.log"
