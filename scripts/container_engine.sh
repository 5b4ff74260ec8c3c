# Sourced (tests/image/image_test.sh, bench/gradescope_podman.sh): how a container of IMAGE starts
# on this machine. A machine that is itself a sandbox (no CAP_SYS_RESOURCE, cgroups v1 and v2
# mixed) refuses podman's defaults (crun, higher limits): then runc, and limits no higher than
# this shell's.
#   container_start ENGINE IMAGE
# sets engine_cmd (the engine and its global options) and run_opts (for `run`), and
# container_note (how they differ from the defaults, or empty); returns 1 with the reason in
# container_error where no container starts.
container_start() {
    local engine=$1 image=$2 first_error nproc hint=""
    engine_cmd=("$engine") run_opts=() container_note="" container_error=""
    _container_probe() { "${engine_cmd[@]}" run --rm "${run_opts[@]}" --entrypoint /bin/true "$image" 2>&1; }
    first_error=$(_container_probe) && return 0
    [ "$engine" = podman ] && command -v runc >/dev/null && engine_cmd=(podman --runtime runc)
    nproc=$(ulimit -Hu)
    { [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; } && nproc=32769
    run_opts=(--ulimit "nofile=$(ulimit -Sn):$(ulimit -Hn)" --ulimit "nproc=$((nproc - 1)):$((nproc - 1))")
    [ "$engine" = podman ] && ! command -v runc >/dev/null &&
        hint=" (apt-get install runc: podman then tries runc, which starts where crun cannot, as on a machine that is itself a container)"
    if ! _container_probe >/dev/null; then
        container_error="$engine cannot start a container here: $(printf '%s' "$first_error" | tail -n 1)$hint"
        return 1
    fi
    container_note="containers start here only as: ${engine_cmd[*]} run ${run_opts[*]} (the default said: $(printf '%s' "$first_error" | tail -n 1))"
}
