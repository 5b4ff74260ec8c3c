#!/usr/bin/env bash
# Writes the sizes the memory-hierarchy and platform diagrams print for one OpenCL device, as
# key=value lines, from `clinfo --raw` (see slides/README.md, "Diagrams"):
#
#   slides/tools/device_sizes.sh [TAG] > slides/data/device_NAME.txt
#
# TAG is clinfo's name for the device in its --raw output (POCL/0, NV/0); default: the first
# device it lists. The committed files are this output, kept so that a
# deck renders the same on a machine without that device.
set -euo pipefail
want=${1:-}
command -v clinfo >/dev/null || { echo "device_sizes.sh: clinfo is missing. Fix: apt-get install clinfo" >&2; exit 1; }
clinfo --raw 2>/dev/null | awk -v want="$want" '
    # Lines look like "[POCL/0]  CL_DEVICE_NAME  value"; the tag names the platform and device.
    match($0, /^\[[^]]*\/[0-9]+\]/) {
        tag = substr($0, 2, RLENGTH - 2)
        if (want == "") { if (first == "") first = tag }
        key = $2
        value = $0; sub(/^\[[^]]*\][[:space:]]+[^[:space:]]+[[:space:]]+/, "", value)
        v[tag, key] = value
    }
    END {
        t = (want != "") ? want : first
        if (t == "" || v[t, "CL_DEVICE_NAME"] == "") {
            print "device_sizes.sh: clinfo lists no device" (want != "" ? " " want : "") > "/dev/stderr"; exit 1
        }
        split("name CL_DEVICE_NAME compute_units CL_DEVICE_MAX_COMPUTE_UNITS global_mem CL_DEVICE_GLOBAL_MEM_SIZE " \
              "global_cache CL_DEVICE_GLOBAL_MEM_CACHE_SIZE local_mem CL_DEVICE_LOCAL_MEM_SIZE " \
              "constant_mem CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE max_work_group CL_DEVICE_MAX_WORK_GROUP_SIZE " \
              "float_vector_width CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT", f, " ")
        for (i = 1; i < 16; i += 2) {
            if (v[t, f[i + 1]] == "") { print "device_sizes.sh: clinfo gives no " f[i + 1] " for " t > "/dev/stderr"; exit 1 }
            print f[i] "=" v[t, f[i + 1]]
        }
    }'
