#!/usr/bin/env bash
# Installs the Debian 12 packages the workbook needs (only those missing), then configures and
# builds everything into build/. Both set-up commands of the README start with this script.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake make g++ pkg-config
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers clinfo  # OpenCL loader and headers
  pocl-opencl-icd                                                  # the default device: the CPU
  doctest-dev libfmt-dev libtomlplusplus-dev libcli11-dev
  libopenblas-dev libclblast-dev                                   # the bench's BLAS rows (optional)
  oclgrind                                                         # the race check
  tmux procps                                                      # the CLI's watch-mode tests; pgrep in the grader's test
  bubblewrap zip unzip nlohmann-json3-dev                          # the auto-checker: sandbox, zips, JSON
  pandoc wkhtmltopdf poppler-utils fonts-dejavu-core               # slides: HTML, PDF, the check
  libsqlitecpp-dev libcpp-httplib-dev chromium                     # the contest: database, web server, page test
  libutf8proc-dev libssl-dev python3                               # the contest: aliases (NFKC), tokens (SHA-256), server tests
  slurmctld slurmd munge                                           # grading on a cluster: the Slurm test
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  as_root=()
  [ "$(id -u)" -ne 0 ] && as_root=(sudo)
  echo "Installing: ${missing[*]}"
  "${as_root[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y "${missing[@]}"
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
