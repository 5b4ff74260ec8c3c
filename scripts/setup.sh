#!/usr/bin/env bash
# Installs the Debian 12 packages the workbook needs (only those missing), then configures and
# builds into build/. The README's two set-up commands start with this script:
#   scripts/setup.sh        the student's packages: the exercises, their tests and `workbook`
#   scripts/setup.sh --all  also the instructor's and the test suite's (grader, contest, slides,
#                           bench rows); the build must then hold every part, or configure fails
# Not root: sudo installs what is missing; without sudo the script names the packages and the one
# command for an administrator. When nothing is missing it asks for no privilege at all.
set -euo pipefail
cd "$(dirname "$0")/.."

all=OFF
case "$*" in
  "") ;;
  --all) all=ON ;;
  *) echo "usage: scripts/setup.sh [--all]" >&2; exit 2 ;;
esac

# What a student needs: build the exercises, run their demos and graded tests, and `workbook`
# (watch, check with its race check under Oclgrind, hints, progress).
student=(
  cmake ninja-build make g++ cpp  # ninja: the build; make: the plain-make path; cpp: kernels are preprocessed by the workbook (preprocess.hpp)
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers clinfo  # OpenCL loader and headers
  pocl-opencl-icd                                                  # the default device: the CPU
  doctest-dev libfmt-dev libtomlplusplus-dev libcli11-dev          # graded tests, util layer, CLI
  nlohmann-json3-dev                                               # `workbook`: the grader's JSON
  oclgrind liboclgrind-dev                                         # the race check; rungs 18 and 19's traffic rules (a plugin)
  llvm-14-dev                                                      # the headers of Oclgrind's LLVM: the pointer-bits and traffic plugins
)
# The instructor's and the test suite's. Without them CMake leaves out the parts that need them
# and says which (cmake/parts.cmake).
rest=(
  bubblewrap zip unzip procps python3 python3-yaml                 # the grader: sandbox, zips; its tests (yaml: classroom)
  libsqlitecpp-dev libcpp-httplib-dev libutf8proc-dev libssl-dev pkg-config  # the contest
  chromium                                                         # the contest page's test
  libopenblas-dev libclblast-dev                                   # the bench's BLAS rows
  pandoc wkhtmltopdf poppler-utils fonts-dejavu-core graphviz      # slides: HTML, PDF, diagrams, the check
  tmux                                                             # the CLI's watch-mode test
  slurmctld slurmd munge                                           # grading on a cluster: the Slurm test
  podman mmdebstrap xz-utils runc                                  # the course image (scripts/image.sh): the Classroom test in it
)
packages=("${student[@]}")
[ "$all" = ON ] && packages+=("${rest[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    # `sudo -v` asks for the password once; it fails where this account may not use sudo.
    if command -v sudo >/dev/null && sudo -v; then
      as_root=(sudo)
    else
      again="scripts/setup.sh"
      [ "$all" = ON ] && again+=" --all"
      cat >&2 <<EOF
scripts/setup.sh: ${#missing[@]} Debian package(s) missing: ${missing[*]}
Installing them needs root, and this account cannot use sudo. Ask an administrator to run:

  apt-get install ${missing[*]}

then run $again again (it builds without any privilege once nothing is missing).
EOF
      exit 1
    fi
  fi
  echo "Installing: ${missing[*]}"
  "${as_root[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y "${missing[@]}"
fi

# Ninja: the whole build in about 8 minutes on 2 cores where Makefiles took 16 (a thousand small
# targets, each a round of sub-makes). A build folder configured before keeps its generator.
generator=()
[ -f build/CMakeCache.txt ] || generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DWORKBOOK_REQUIRE_ALL="$all"
cmake --build build -j"$(nproc)"
