#!/bin/bash
# The image's programs on the host's NVIDIA OpenCL, as the NVIDIA container toolkit would set them
# up: the ICD file, the driver's OpenCL library and the libraries it loads, and the device nodes,
# mounted into the image's root file system. For a GPU machine without a registry or podman.
#   h100.sh pack ROOTFS OUT.tar.xz       (here; ROOTFS a tarball or folder) the programs of the GPU
#                                        run and their libraries,
#                                        taken from the image's root file system (a small bundle)
#   h100.sh run ROOTFS.tar[.xz]          (on the GPU machine, as root) chroot into it, the driver
#                                        mounted in: devices, exercise 02's demo and graded test
#                                        (solution passes, starter fails), an SGEMM rung's demo;
#                                        with a full root file system also `workbook check 02`
#   h100.sh podman IMAGE                 the same checks with podman and the same mounts
# Exit 0 when every check came out as expected; each check prints ok: or FAIL:.
set -euo pipefail

die() {
    echo "h100.sh: $*" >&2
    exit 1
}
bin=/opt/workbook/build/bin
arch_lib=/usr/lib/x86_64-linux-gnu
# What the GPU run executes (beside the workbook): the graded test is two programs, checker and runner.
programs=(workbook 02_vadd-solution test-02_vadd-solution runner-02_vadd-solution test-02_vadd-starter runner-02_vadd-starter
    15_sgemm_wpt-solution)

pack() {
    local rootfs=$1 out=$2  # root and scratch stay global: the EXIT trap removes scratch
    [ -e "$rootfs" ] || die "no root file system $rootfs: build it with scripts/image.sh --rootfs-only (it prints its path)"
    [ "$(id -u)" -eq 0 ] || die "pack reads a root file system with chroot: run it as root"
    scratch=$(mktemp -d)
    trap 'rm -rf --one-file-system "$scratch"' EXIT
    if [ -d "$rootfs" ]; then
        root=$(cd "$rootfs" && pwd)
    else
        root=$scratch/root
        mkdir "$root"
        tar -C "$root" -xf "$rootfs"
    fi
    local list=$scratch/list
    {
        printf '%s\n' etc/ld.so.cache etc/ld.so.conf etc/ld.so.conf.d/x86_64-linux-gnu.conf etc/ld.so.conf.d/libc.conf \
            etc/passwd etc/group opt/workbook/commit
        for p in "${programs[@]}"; do echo "${bin#/}/$p"; done
        echo usr/bin/clinfo
        echo usr/sbin/ldconfig
        # Every library the programs, and the tools this script runs inside, load; and glibc's
        # whole set: the driver's libraries load libdl, librt, libpthread and libm, which no
        # workbook program names.
        local tools=(sh bash env cat ls ldd mkdir rm cp sed tail head tee grep readlink cpp)
        chroot "$root" sh -c 'for t; do command -v "$t"; done' sh "${tools[@]}" | sed 's|^/||'
        chroot "$root" sh -c 'for t; do [ "$t" = ldd ] || ldd "$(command -v "$t")" || true; done' sh \
            "${tools[@]}" /usr/bin/clinfo "${programs[@]/#/$bin/}" 2>/dev/null |
            awk '/=>/ && $3 ~ /^\// { print $3 } /^\t\/lib/ { print $1 }' | sed 's|^/||'
        # The C preprocessor the workbook runs on every kernel: cpp is a driver, cc1 does the work.
        # cpp is a chain of links (cpp -> cpp-12 -> x86_64-linux-gnu-cpp-12): every link of it.
        chroot "$root" sh -c 'p=$(command -v cpp); while [ -L "$p" ]; do echo "$p"; t=$(readlink "$p")
            case $t in /*) p=$t ;; *) p=$(dirname "$p")/$t ;; esac; done' | sed 's|^/||'
        chroot "$root" sh -c 'c=$(cpp -print-prog-name=cc1); echo "$c"; ldd "$c"' |
            awk '/=>/ && $3 ~ /^\// { print $3; next } /^\// { print $1 }' | sed 's|^/||'
        chroot "$root" dpkg -L libc6 | grep -E "^(/usr)?/lib/x86_64-linux-gnu/[^/]*\.so" | sed "s|^/||"
    } | sort -u > "$list"
    # Each path in its canonical folder (bin, lib and lib64 are links into usr/), by the name it is
    # loaded by and by the file that name points to.
    chroot "$root" sh -c 'while read -r f; do
            [ -e "/$f" ] || { echo "missing /$f" >&2; exit 1; }
            d=$(readlink -f "$(dirname "/$f")"); echo "${d#/}/$(basename "$f")"
            r=$(readlink -f "/$f"); echo "${r#/}"
        done' < "$list" | sed 's|^/||' | sort -u > "$list.all" || die "a path of the bundle is not in the root file system"
    printf '%s\n' bin lib lib64 sbin etc/OpenCL/vendors >> "$list.all"
    for d in proc dev sys tmp workbook; do if [ -d "$root/$d" ]; then echo "$d"; fi; done >> "$list.all"
    tar -C "$root" --no-recursion -cf - -T "$list.all" | xz -T2 -6 > "$out"
    echo "bundle: $out, $(du -k "$out" | cut -f1) KiB compressed, $(wc -l < "$list.all") paths"
}

# The host's NVIDIA OpenCL: the ICD file's library and the libraries the driver loads with it.
driver_files() {
    local icd=/etc/OpenCL/vendors/nvidia.icd lib name
    if [ -f "$icd" ]; then
        lib=$(head -n 1 "$icd")
    else
        lib=libnvidia-opencl.so.1
        echo "h100.sh: no $icd on this machine; looking for $lib (the README: echo $lib > $icd)" >&2
    fi
    for name in "$lib" libcuda.so.1 libnvidia-ptxjitcompiler.so.1 libnvidia-nvvm.so.4 libnvidia-ml.so.1; do
        local path
        path=$(ldconfig -p | awk -v n="$name" '$1 == n && /x86-64/ { print $NF; exit }')
        if [ -z "$path" ] && [ -e "$name" ]; then path=$name; fi
        if [ -n "$path" ]; then
            echo "$(basename "$name") $(readlink -f "$path")"
        elif [ "$name" = "$lib" ]; then
            die "the NVIDIA OpenCL library $lib is not on this machine (ldconfig -p): is the driver installed?"
        else
            echo "h100.sh: $name not found; going on without it" >&2
        fi
    done
}

expect() {  # expect WANT WHAT COMMAND...: exit status WANT (0, or "nonzero")
    local want=$1 what=$2 got=0
    shift 2
    "$@" > /tmp/h100.out 2>&1 || got=$?
    # NEED: a text the output must hold too (a failure for the right reason).
    if { { [ "$want" = 0 ] && [ "$got" = 0 ]; } || { [ "$want" = nonzero ] && [ "$got" != 0 ]; }; } &&
        { [ -z "${NEED:-}" ] || grep -qF "$NEED" /tmp/h100.out; }; then
        echo "ok: $what (exit $got)"
        sed 's/^/    /' /tmp/h100.out | tail -n "${TAIL:-6}"
    else
        echo "FAIL: $what: exit $got, expected $want${NEED:+, with \"$NEED\"}"
        sed 's/^/    /' /tmp/h100.out | tail -n 40
        failures=$((failures + 1))
    fi
}

# Inside the root file system (chroot), the driver mounted in: the checks themselves.
checks() {
    failures=0
    # H100_PLATFORM: another platform for a dry run of these checks (Portable: PoCL in a full image).
    export PATH=$bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp/home WORKBOOK_PLATFORM=${H100_PLATFORM:-NVIDIA}
    mkdir -p "$HOME"
    echo "image commit: $(cat /opt/workbook/commit 2>/dev/null || echo unknown)"
    TAIL=20 expect 0 "clinfo lists the $WORKBOOK_PLATFORM platform" sh -c 'clinfo -l | tee /dev/stderr | grep -q "$WORKBOOK_PLATFORM"'
    TAIL=10 expect 0 "workbook devices" workbook devices
    expect 0 "exercise 02's demo (the solution) on the GPU" 02_vadd-solution
    expect 0 "exercise 02's graded test, the solution, on the GPU" test-02_vadd-solution
    NEED="elements differ" expect nonzero "exercise 02's graded test, the starter, fails on the GPU" test-02_vadd-starter
    expect 0 "an SGEMM rung's demo (15, the solution) on the GPU" 15_sgemm_wpt-solution
    if [ -x /usr/bin/cmake ] && [ -d /opt/workbook/src ]; then
        # The full image: the student's command, with the build and the race pass (Oclgrind).
        rm -rf /workbook/* && cp -a /opt/workbook/src/. /workbook/
        cp /workbook/solutions/02_vadd/* /workbook/exercises/02_vadd/
        TAIL=12 expect 0 "workbook check 02 (the solution) on the GPU, race pass under Oclgrind" \
            sh -c 'cd /workbook && /opt/workbook/sync-times && workbook check 02'
    else
        echo "note: a bundle without the compilers: workbook check (build, race pass) not run"
    fi
    echo "h100.sh: $failures check(s) failed"
    [ "$failures" = 0 ]
}

run() {
    local rootfs=$1  # root stays global: the EXIT trap removes it
    [ "$(id -u)" -eq 0 ] || die "run needs root (chroot, mounts)"
    [ -f "$rootfs" ] || die "no root file system $rootfs"
    local drivers
    if [ -n "${H100_DRIVERS:-}" ]; then
        drivers=$H100_DRIVERS  # "soname path" lines: a dry run of the mounts with a stand-in library
    else
        ls /dev/nvidia* >/dev/null 2>&1 || die "no /dev/nvidia* device nodes: is this a machine with an NVIDIA GPU and its driver?"
        drivers=$(driver_files)
    fi
    echo "the host's NVIDIA OpenCL, mounted into the image:"
    echo "$drivers" | sed 's/^/  /'
    root=$(mktemp -d)
    trap 'rm -rf --one-file-system "$root"' EXIT
    tar -C "$root" -xf "$rootfs"
    cp "$0" "$root/tmp/h100.sh"
    # A mount namespace of its own: every mount goes away with it.
    local status=0
    ROOT=$root DRIVERS=$drivers unshare --mount --propagation private --fork bash -c '
        set -euo pipefail
        mount -t proc proc "$ROOT/proc"
        mount --rbind /dev "$ROOT/dev"
        mount --rbind /sys "$ROOT/sys"
        mkdir -p "$ROOT/etc/OpenCL/vendors"
        # Only the NVIDIA platform: the image'"'"'s PoCL ICD stays, and WORKBOOK_PLATFORM picks NVIDIA.
        echo libnvidia-opencl.so.1 > "$ROOT/etc/OpenCL/vendors/nvidia.icd"
        while read -r name path; do
            : > "$ROOT'"$arch_lib"'/$name"
            mount --bind -o ro "$path" "$ROOT'"$arch_lib"'/$name"
        done <<< "$DRIVERS"
        chroot "$ROOT" /usr/sbin/ldconfig
        missing=$(chroot "$ROOT" ldd '"$arch_lib"'/libnvidia-opencl.so.1 | grep "not found" || true)
        [ -z "$missing" ] || { echo "h100.sh: the driver needs libraries the image lacks:"; echo "$missing"; exit 1; }
        chroot "$ROOT" /bin/bash /tmp/h100.sh checks' || status=$?
    return $status
}

podman_run() {
    local image=$1 args=() drivers name path
    drivers=$(driver_files)
    for d in /dev/nvidia*; do [ -c "$d" ] && args+=(--device "$d"); done
    args+=(-v "$(mktemp -d):/etc/OpenCL/vendors")  # only the NVIDIA ICD inside
    while read -r name path; do args+=(-v "$path:$arch_lib/$name:ro"); done <<< "$drivers"
    local icd
    icd=$(mktemp)
    echo libnvidia-opencl.so.1 > "$icd"
    args+=(-v "$icd:/etc/OpenCL/vendors/nvidia.icd:ro")
    podman run --rm "${args[@]}" -v "$0:/tmp/h100.sh:ro" --entrypoint /bin/sh "$image" -c \
        'ldconfig && mkdir -p /workbook && exec /bin/bash /tmp/h100.sh checks'
}

case "${1:-}" in
pack) [ $# = 3 ] || die "usage: h100.sh pack ROOTFS(.tar or folder) OUT.tar.xz"; pack "$2" "$3" ;;
run) [ $# = 2 ] || die "usage: h100.sh run ROOTFS.tar[.xz]"; run "$2" ;;
podman) [ $# = 2 ] || die "usage: h100.sh podman IMAGE"; podman_run "$2" ;;
checks) checks ;;
*) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
