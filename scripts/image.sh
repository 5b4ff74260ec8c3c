#!/usr/bin/env bash
# Builds the workbook's container image (OCI) from Debian 12 packages alone: mmdebstrap makes the
# root file system from the Debian archive (no base image is pulled), the committed tree
# (`git archive HEAD`) is built inside it, and podman imports the result as
# opencl-workbook:<short commit> and opencl-workbook:latest. docs/image.md says how to use it.
#   scripts/image.sh [--out DIR] [--rootfs-only] [--jobs N] [--only IDS --tag NAME]
set -euo pipefail
# The whole script is one block, read before it runs: a checkout updated during the build cannot
# change what runs.
{
cd "$(dirname "$0")/.."
repo=$PWD

usage() {
    cat <<EOF
usage: scripts/image.sh [--out DIR] [--rootfs-only] [--jobs N] [--only IDS --tag NAME]
  --out DIR      where the root file system tarball and the package cache go (default: build-image/)
  --rootfs-only  stop after the root file system tarball (no podman needed): for Apptainer or a chroot
  --jobs N       parallel compile jobs inside the image (default: the number of cores)
  --only IDS     a cut image: only these exercises built (comma-separated ids, e.g. 01,02,03), as the
                 test suite's classroom.image builds it; needs --tag, and never becomes :latest
  --tag NAME     the image's name (default: opencl-workbook:<commit> and opencl-workbook:latest)
Environment: WORKBOOK_DEBIAN_MIRROR (default http://deb.debian.org/debian) and
WORKBOOK_DEBIAN_SECURITY (default http://deb.debian.org/debian-security) for a local mirror.
EOF
}

out=build-image rootfs_only=0 jobs=$(nproc) only="" tag=""
while [ $# -gt 0 ]; do
    case "$1" in
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --rootfs-only) rootfs_only=1; shift ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --only) only=${2:?--only needs exercise ids, e.g. 01,02,03}; shift 2 ;;
    --tag) tag=${2:?--tag needs an image name, e.g. opencl-workbook-cut:test}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "scripts/image.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
case "$jobs" in '' | *[!0-9]* | 0) echo "scripts/image.sh: --jobs needs a positive number, not '$jobs'" >&2; exit 2 ;; esac
# A cut image is not the course image: it gets a name of its own, so it never stands in for one.
if [ -n "$only" ] && [ -z "$tag" ]; then
    echo "scripts/image.sh: --only builds a cut image; name it with --tag (e.g. --tag opencl-workbook-cut:test)" >&2; exit 2
fi

die() {
    echo "scripts/image.sh: $*" >&2
    exit 1
}

# --- What the image holds -------------------------------------------------------------------------
# The student's packages, read from scripts/setup.sh (its `student` list, at the commit built), the
# grader's tools (sandbox, archives, process tools) and the contest's libraries: the image is the
# student's, the grader's and the cluster's. Left out: what only the repository's own test suite,
# the slides and the bench use (Chromium, pandoc, Slurm, OpenBLAS/CLBlast); the bench is not built.
grader_and_contest=(
    bubblewrap zip unzip procps
    libsqlitecpp-dev libcpp-httplib-dev libutf8proc-dev libssl-dev pkg-config
)
suite=bookworm
mirror=${WORKBOOK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${WORKBOOK_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}

# --- The host's tools -----------------------------------------------------------------------------
[ -r /etc/debian_version ] && command -v apt-get >/dev/null ||
    die "this script builds on Debian (12 or later) with apt-get; this machine has neither. Build on a Debian 12 machine or VM."
git -C "$repo" rev-parse --verify -q HEAD >/dev/null ||
    die "$repo is not a git checkout with a commit: the image is built from the committed tree (git archive HEAD). Clone the repository and run it there."
[ "$(id -u)" -eq 0 ] ||
    die "building the root file system and the workbook inside it needs root (mmdebstrap's root mode, chroot). Run: sudo scripts/image.sh"
tools=(mmdebstrap xz-utils)
[ "$rootfs_only" = 1 ] || tools+=(podman)
missing=()
for p in "${tools[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing the build's tools: ${missing[*]}"
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"; } ||
        die "could not install ${missing[*]} (apt-get failed, above). Install them by hand (apt-get install ${missing[*]}) and run this again."
fi

commit=$(git -C "$repo" rev-parse --short=12 HEAD)
mapfile -t packages < <(git -C "$repo" show HEAD:scripts/setup.sh |
    awk '/^student=\(/ { on = 1; next } on && /^\)/ { exit } on { sub(/#.*/, ""); for (i = 1; i <= NF; i++) print $i }')
case " ${packages[*]} " in *" pocl-opencl-icd "*) ;;
*) die "could not read the student's packages from scripts/setup.sh (its student=( ... ) list) at HEAD" ;; esac
packages+=("${grader_and_contest[@]}")
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
    echo "note: the working tree has uncommitted changes; the image holds the committed tree $commit only."
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rootfs="$out/opencl-workbook-$commit${only:+-only-${only//,/-}}.rootfs.tar"
work=$(mktemp -d "$out/work.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out/apt-cache"

# --- The workbook's source: the committed tree ----------------------------------------------------
git -C "$repo" archive --format=tar -o "$work/source.tar" HEAD
# The exercises in course order, read from the manifest (nothing repeats the list).
exercises=$(git -C "$repo" show HEAD:course.toml |
    awk -F'"' '/^\[\[exercise\]\]/ { id = "" } /^id *=/ { id = $2 } /^name *=/ && id != "" { printf "%s%s_%s", sep, id, $2; sep = ";" }')
[ -n "$exercises" ] || die "course.toml at HEAD lists no exercise"
if [ -n "$only" ]; then
    wanted=$(tr ',' '\n' <<< "$only" | grep -v '^$' | sort -u)
    cut=$(tr ';' '\n' <<< "$exercises" | while IFS= read -r d; do if grep -qx "${d%%_*}" <<< "$wanted"; then echo "$d"; fi; done | paste -sd';')
    [ "$(tr ';' '\n' <<< "$cut" | grep -c .)" = "$(grep -c . <<< "$wanted")" ] ||
        die "--only $only: not every id is an exercise of course.toml (its ids: $(tr ';' '\n' <<< "$exercises" | cut -d_ -f1 | paste -sd' '))"
    exercises=$cut
fi

# What runs inside the new root file system (chroot), after the packages are installed.
cat > "$work/inside.sh" <<'INSIDE'
#!/bin/sh
# Inside the image's root file system: build the workbook from /workbook into /opt/workbook/build,
# then keep only what a student, a grader or a cluster job needs at run time.
set -eu
exercises=$1 jobs=$2 commit=$3
cd /workbook
# WORKBOOK_ONLY with every exercise: each exercise's graded test for the starter and the solution,
# the CLI, the grader and the contest, without the repository's own tests (planted bugs, variants,
# the bench): `workbook calibrate` says so. The flags are scripts/setup.sh's (Release: -O2, no
# debug info), so a check behaves as on a machine set up with it.
cmake -S /workbook -B /opt/workbook/build -G Ninja -DCMAKE_BUILD_TYPE=Release "-DWORKBOOK_ONLY=$exercises" >/opt/workbook/configure.log 2>&1 ||
    { cat /opt/workbook/configure.log; exit 1; }
cmake --build /opt/workbook/build -j"$jobs" >/opt/workbook/build.log 2>&1 || { tail -n 60 /opt/workbook/build.log; exit 1; }
rm -f /opt/workbook/configure.log /opt/workbook/build.log
# Debug information is nearly all of the build's size (about 4 of its 4.2 GB): it goes from the
# workbook's programs, libraries and objects, their times kept (-p) so that the build stays up to
# date. Files a student changes are compiled again with it.
find /opt/workbook/build -type f \( -name '*.o' -o -name '*.a' -o -path '*/bin/*' \) -exec strip --strip-debug -p {} + 2>/dev/null || true
echo "$commit" > /opt/workbook/commit
# The pristine tree moves aside: /workbook is where the student's folder is mounted, and an empty
# folder mounted there is filled from this copy (times kept, so the build tree stays up to date).
mkdir -p /opt/workbook/src
find /workbook -mindepth 1 -maxdepth 1 -exec mv -t /opt/workbook/src {} +
INSIDE

# The container's entry point: the student's folder at /workbook, then `workbook` with the
# arguments given (none: watch mode), or any other program named first (bash, clinfo, ...).
cat > "$work/entrypoint" <<'ENTRY'
#!/bin/sh
# Entry point of the opencl-workbook image (scripts/image.sh). The student's workbook folder is
# mounted at /workbook; an empty one is filled with the course first. Then `workbook "$@"`
# (no arguments: watch mode), or the program named first when it is not a workbook verb.
set -eu
src=/opt/workbook/src
# Who owns the mounted folder: under a rootful engine (docker on Linux) what the container writes
# there is given back to that owner.
owner=$(stat -c %u:%g /workbook 2>/dev/null || echo 0:0)
give_back() {
    if [ "$(id -u)" = 0 ] && [ "${owner%%:*}" != 0 ]; then
        find /workbook -xdev -uid 0 -exec chown "$owner" {} + 2>/dev/null || true
    fi
}
if [ ! -f /workbook/course.toml ]; then
    if [ -d /workbook ] && [ -z "$(ls -A /workbook 2>/dev/null)" ]; then
        cp -R --preserve=mode,timestamps "$src/." /workbook/ 2>/dev/null && give_back || {
            echo "opencl-workbook: cannot write into /workbook (the folder you mounted). Give the container" >&2
            echo "write access to it (podman: add :Z to the -v option on SELinux hosts such as Fedora)." >&2
            exit 2
        }
        echo "opencl-workbook: your folder was empty, so the course (commit $(cat /opt/workbook/commit)) is now in it."
        echo "Edit the files there with any editor on your machine; this container checks them."
    else
        cat >&2 <<EOF
opencl-workbook: /workbook holds no course.toml, so it is not a workbook folder.
Mount your workbook folder there, or an empty folder to get a fresh copy of the course:
  mkdir -p ~/opencl-workbook && podman run --rm -it -v ~/opencl-workbook:/workbook opencl-workbook
EOF
        exit 2
    fi
fi
/opt/workbook/sync-times
# PoCL keeps its kernel cache under $HOME: give a user without a writable home one in /tmp.
if [ -z "${HOME:-}" ] || [ ! -w "${HOME:-/nonexistent}" ]; then
    export HOME=/tmp/workbook-home
    mkdir -p "$HOME"
fi
case "${1:-}" in
"" | -* | watch | list | next | go | check | hint | reset | solution | progress | doctor | devices | grade | calibrate | gradescope-package | contest) ;;
*) if command -v "$1" >/dev/null 2>&1; then exec "$@"; fi ;;
esac
if [ "$(id -u)" = 0 ] && [ "${owner%%:*}" != 0 ]; then
    # What the workbook writes into the folder (progress, backups, a reset's files) would belong
    # to root on the host: given back to the folder's owner when it exits.
    status=0
    workbook "$@" || status=$?
    give_back
    exit "$status"
fi
exec workbook "$@"
ENTRY

# Before the first check in a container: a file of the mounted folder that is byte for byte the
# image's copy gets that copy's time, so the build tree built from it stays up to date (a fresh
# git clone's files are all newer than the build, and would rebuild everything on the first check).
cat > "$work/sync-times" <<'SYNC'
#!/bin/sh
# Once per container (opencl-workbook image): afterwards the build tree may hold builds of the
# student's own files, which an older time would hide from make.
set -eu
mark=/opt/workbook/build/.times-adopted
[ -e "$mark" ] && exit 0
cd /opt/workbook/src
find . -type f | while IFS= read -r f; do
    mine=/workbook/${f#./}
    if [ -f "$mine" ] && [ "$mine" -nt "$f" ] && cmp -s "$f" "$mine"; then touch -r "$f" "$mine" 2>/dev/null || true; fi
done
touch "$mark" 2>/dev/null || true  # a read-only root (apptainer, --read-only): every start syncs
SYNC

echo "Building the root file system of opencl-workbook:$commit (Debian $suite, ${#packages[@]} packages and their dependencies, then the workbook with -j$jobs)"
start=$(date +%s)
include=$(IFS=,; echo "${packages[*]}")
# Documentation, manual pages and translations are left out (dpkg path filters); the copyright files
# stay. The archives are cached in $out/apt-cache between builds; this machine's own apt archives
# are hard-linked in too where they share a file system (same names: same package and version, and
# apt checks each against the archive's hashes), which spares a fresh build most downloads; the
# cache keeps only what was downloaded (the links go before it is synced out).
# dpkg without fsync (force-unsafe-io): the root file system is a tarball made at the end, so a
# crash half-way loses nothing that a rerun does not make again.
# In a mount namespace of its own, its root in $work (0700): the /proc and /dev it mounts in the new
# root are nobody else's to see, walk into or hold busy (a process of the test suite that walked
# into that /proc once kept it mounted, and mmdebstrap failed at its clean-up).
TMPDIR=$work unshare --mount --propagation private \
    mmdebstrap --mode=root --variant=apt --format=tar --include="$include" --dpkgopt=force-unsafe-io \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --setup-hook="mkdir -p \"\$1/var/cache/apt/archives\"" \
    --setup-hook="sync-in '$out/apt-cache' /var/cache/apt/archives/" \
    --setup-hook="cp -ln /var/cache/apt/archives/*.deb \"\$1/var/cache/apt/archives/\" 2>/dev/null || true" \
    --customize-hook="find \"\$1/var/cache/apt/archives\" -name '*.deb' -links +1 -delete" \
    --customize-hook="sync-out /var/cache/apt/archives '$out/apt-cache'" \
    --customize-hook="mkdir -p \"\$1/workbook\" \"\$1/opt/workbook\"" \
    --customize-hook="tar-in '$work/source.tar' /workbook" \
    --customize-hook="upload '$work/inside.sh' /tmp/inside.sh" \
    --customize-hook="upload '$work/entrypoint' /opt/workbook/entrypoint" \
    --customize-hook="upload '$work/sync-times' /opt/workbook/sync-times" \
    --customize-hook="chmod 0755 \"\$1/opt/workbook/entrypoint\" \"\$1/opt/workbook/sync-times\"" \
    --customize-hook="chroot \"\$1\" sh /tmp/inside.sh '$exercises' '$jobs' '$commit'" \
    --customize-hook="rm -rf \"\$1/tmp/inside.sh\" \"\$1/var/lib/apt/lists\"/*_Packages* \"\$1/var/cache/apt\"/*.bin" \
    --customize-hook="rm -f \"\$1/var/cache/apt/archives\"/*.deb; : > \"\$1/etc/machine-id\"" \
    "$suite" "$rootfs.part" \
    "deb $mirror $suite main" "deb $mirror $suite-updates main" "deb $security $suite-security main" ||
    die "mmdebstrap failed (its messages are above): the Debian archive unreachable ($mirror), a package missing, or the workbook's build inside the image failed"
mv "$rootfs.part" "$rootfs"
built=$(date +%s)
echo "root file system: $rootfs ($(du -m "$rootfs" | cut -f1) MiB) in $((built - start)) s"

if [ "$rootfs_only" = 1 ]; then
    echo "--rootfs-only: not imported; the tarball serves a chroot (tests/image/h100.sh run) or an OCI bundle (docs/image.md)."
    exit 0
fi

name=${tag:-opencl-workbook:$commit}
podman import \
    --change 'ENTRYPOINT ["/opt/workbook/entrypoint"]' \
    --change 'WORKDIR /workbook' \
    --change 'ENV PATH=/opt/workbook/build/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change "LABEL org.opencontainers.image.revision=$commit" \
    --change 'LABEL org.opencontainers.image.title="OpenCL Workbook"' \
    --change "LABEL org.opencl-workbook.exercises=${only:-all}" \
    --message "OpenCL Workbook $commit: Debian $suite, PoCL, Oclgrind, the workbook built in /opt/workbook (exercises: ${only:-all})" \
    "$rootfs" "$name" >/dev/null ||
    die "podman import failed (above). The root file system is kept: $rootfs"
[ -n "$tag" ] || podman tag "$name" "opencl-workbook:latest"
done_at=$(date +%s)
size=$(podman image inspect --format '{{.Size}}' "$name")
if [ -n "$tag" ]; then echo "image: $name (exercises ${only:-all}), $((size / 1024 / 1024)) MiB"
else echo "image: $name and opencl-workbook:latest, $((size / 1024 / 1024)) MiB"; fi
echo "build time: $((done_at - start)) s (root file system and the workbook's build $((built - start)) s, import $((done_at - built)) s)"
echo "start it: mkdir -p ~/opencl-workbook && podman run --rm -it -v ~/opencl-workbook:/workbook $name"
exit 0
}
