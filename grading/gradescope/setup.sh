#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image: install the packages and
# build the workbook from the source shipped in this zip (at /autograder/source). The student's
# packages build the checker; bubblewrap is the sandbox run_autograder uses where the container
# allows its namespaces (the rest of `scripts/setup.sh --all`, the contest and the test suite's
# tools, has no use here).
set -euo pipefail
cd "$(dirname "$0")"
if ! dpkg-query -W -f='${Status}' bubblewrap 2>/dev/null | grep -q "install ok installed"; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y bubblewrap
fi
scripts/setup.sh
# The solutions' reference runs on a seed of this autograder's own, once, kept for run_autograder
# (which otherwise pays them for every submission: about half of a whole workbook's processor
# time). The seed and the runs stay root's (0600/0700): the student's code runs as another user.
root=$(cd .. && pwd)
rm -rf "$root/prepared"
mkdir -p "$root/prepared-empty"
# Where the container refuses bubblewrap's namespaces, as run_autograder does: --no-sandbox (only the
# instructor's solutions run here).
sandbox=()
bwrap --ro-bind / / true 2>/dev/null || sandbox=(--no-sandbox)
build/bin/workbook --root "$PWD" --build-dir "$PWD/build" grade "$root/prepared-empty" --out "$root/prepared" \
    --references-only -q "${sandbox[@]}"
rmdir "$root/prepared-empty"
