#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image: install the packages and
# build the workbook from the source shipped in this zip (at /autograder/source).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
