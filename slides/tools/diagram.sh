#!/usr/bin/env bash
# Draws the course's diagrams from text: each one is Graphviz (DOT) written here, with its numbers
# (tile size, work-group size, vector widths, device sizes) read from the files the code reads
# them from, so that changing a solution's tile size redraws its picture. See slides/README.md.
#
#   slides/tools/diagram.sh [--svg] NAME [key=value ...]   one diagram: DOT, or SVG through dot
#   slides/tools/diagram.sh --names                        the diagrams, one per line
#   slides/tools/diagram.sh --readmes [--check]            (re)writes exercises/NN_*/diagrams/NAME.svg
#                                                          for every such image an exercise README
#                                                          shows; --check only reports stale ones
# Run from the repository root, or set WORKBOOK_ROOT. Exit status 1 with a message naming the
# file and what was expected when a number cannot be found; 2 on bad usage.
set -euo pipefail

root=${WORKBOOK_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"

die() { echo "diagram.sh: $*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
# Numbers, from where the code takes them.

# The first capture group of the one line of FILE that matches the ERE; fails on none or several,
# naming the file, so that an edit which moves a number breaks the render instead of the picture.
number_in() {
    local file=$1 re=$2 what=$3 line hits=() value=
    [ -f "$file" ] || die "$what: $file not found"
    while IFS= read -r line || [ -n "$line" ]; do
        if [[ $line =~ $re ]]; then hits+=("$line"); value=${BASH_REMATCH[1]}; fi
    done < "$file"
    [ ${#hits[@]} -eq 1 ] || die "$what: expected one line of $file matching /$re/, found ${#hits[@]}; update slides/tools/diagram.sh if the code changed"
    echo "$value"
}

tile_size() {
    number_in exercises/10_mmul_block/launch.hpp 'constexpr std::size_t tile = ([0-9]+);' "the tile size (exercise 10)"
}
columns_per_pass() {
    number_in solutions/08_mmul_row_private/mmul.cl 'j \+= ([0-9]+)\)' "the columns per pass (exercise 08)"
}
rows_per_group() {
    number_in common/include/workbook/matmul.hpp 'constexpr int rows_per_group = ([0-9]+);' "the rows per work-group (exercises 07-09)"
}
pi_group_size() {
    number_in common/include/workbook/pi.hpp 'std::size_t preferred = ([0-9]+)\)' "pi's preferred work-group size (exercises 11-12)"
}
halo_group_size() {
    number_in exercises/14_async_copy/launch.hpp 'work_group_size_1d\(kernel, device, ([0-9]+)\)' "the work-group size (exercise 14)"
}
halo_extra() {
    number_in exercises/14_async_copy/launch.hpp 'return local \+ ([0-9]+);' "the tile's extra elements (exercise 14)"
}
# The vector widths of exercise 12's kernels, from their `const floatW lanes` lines.
vector_widths() {
    local file=solutions/12_pi_vec/pi_vec.cl widths=()
    [ -f "$file" ] || die "the vector widths: $file not found"
    mapfile -t widths < <(sed -n -E 's/.*const float([0-9]+) lanes = .*/\1/p' "$file")
    [ ${#widths[@]} -ge 1 ] || die "the vector widths: no 'const floatW lanes = ...' line in $file"
    echo "${widths[@]}"
}
# Whether exercise 11's solution reduces a group serially (work-item 0 loops) or as a tree.
pi_reduction_kind() {
    local file=solutions/11_pi/pi.cl
    [ -f "$file" ] || die "the reduction: $file not found"
    if grep -q -E '>>= *1|/= *2' "$file"; then echo tree
    elif grep -q -E 'if \(lid == 0\)' "$file"; then echo serial
    else die "the reduction: $file has neither a halving loop nor an 'if (lid == 0)' sum"
    fi
}
# The names of the three commands of exercise 13's graph, from the struct the host code returns.
event_names() {
    local names
    names=$(number_in exercises/13_events/events.hpp '^ *cl::Event ([a-z_]+, [a-z_]+, [a-z_]+);' "the commands (exercise 13)")
    echo "${names//,/}" | tr -d ';'
}
# A value of a device file (slides/data/device_*.txt, written by device_sizes.sh).
device_value() {
    local file=slides/data/device_$1.txt key=$2 v
    [ -f "$file" ] || die "$file not found (slides/tools/device_sizes.sh writes it)"
    v=$(sed -n "s/^$key=//p" "$file")
    [ -n "$v" ] || die "$file has no $key= line (slides/tools/device_sizes.sh writes it)"
    echo "$v"
}
# 2097152 -> "2 MiB"
bytes() {
    awk -v b="$1" 'BEGIN {
        split("B KiB MiB GiB TiB", u, " "); i = 1
        while (b >= 1024 && i < 5) { b /= 1024; i++ }
        printf (b == int(b) || b >= 100) ? "%.0f %s" : "%.1f %s", b, u[i] }'
}

# ---------------------------------------------------------------------------------------------
# Drawing helpers. Colours say where data lives, the same in every diagram.
GLOBAL='#cfe2f3'    # global memory
LOCAL='#b6d7a8'     # local memory
PRIVATE='#f9cb9c'   # private memory (registers)
WRITTEN='#ea9999'   # what the work-item writes
FAINT='#eef3f8'     # global memory, read but not the point
OFF='#ffffff'
INK='#37474f'

header() {
    cat <<EOF
digraph "$1" {
  graph [fontname="DejaVu Sans", fontsize=13, bgcolor="white", pad=0.15, nodesep=0.3, ranksep=0.3];
  node [fontname="DejaVu Sans", fontsize=13, shape=box, style="rounded,filled", fillcolor="white", color="$INK", fontcolor="$INK"];
  edge [fontname="DejaVu Sans", fontsize=12, color="$INK", fontcolor="$INK"];
EOF
}

# An HTML-like table of ROWS x COLS cells; the function named by $3 gets "r c" and prints
# "COLOUR" or "COLOUR<TAB>TEXT" for a cell. $4: cell size in points.
grid() {
    local rows=$1 cols=$2 painter=$3 size=${4:-16} r c spec colour text
    printf '<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="1" COLOR="%s">' "$INK"
    for ((r = 0; r < rows; r++)); do
        printf '<TR>'
        for ((c = 0; c < cols; c++)); do
            spec=$("$painter" "$r" "$c")
            colour=${spec%%$'\t'*}
            text=
            [[ $spec == *$'\t'* ]] && text=${spec#*$'\t'}
            [ -n "$text" ] && text="<FONT POINT-SIZE=\"9\">$text</FONT>"
            printf '<TD WIDTH="%s" HEIGHT="%s" FIXEDSIZE="TRUE" BGCOLOR="%s">%s</TD>' "$size" "$size" "${colour:-$OFF}" "$text"
        done
        printf '</TR>'
    done
    printf '</TABLE>'
}

# A labelled matrix: a title above a grid.
matrix() {
    local title=$1
    shift
    printf '<TABLE BORDER="0" CELLSPACING="2"><TR><TD>%s</TD></TR><TR><TD>%s</TD></TR></TABLE>' "$title" "$(grid "$@")"
}

# A legend row of colour swatches: pairs of COLOUR TEXT.
legend() {
    printf '<TABLE BORDER="0" CELLSPACING="4"><TR>'
    while [ $# -ge 2 ]; do
        printf '<TD WIDTH="14" HEIGHT="14" FIXEDSIZE="TRUE" BGCOLOR="%s" BORDER="1"></TD><TD ALIGN="LEFT">%s</TD>' "$1" "$2"
        shift 2
    done
    printf '</TR></TABLE>'
}

# The same, two swatches a line: narrower.
legend_lines() {
    printf '<TABLE BORDER="0" CELLSPACING="0">'
    while [ $# -ge 2 ]; do
        printf '<TR><TD ALIGN="LEFT">%s</TD></TR>' "$(legend "${@:1:4}")"
        shift $(($# >= 4 ? 4 : 2))
    done
    printf '</TABLE>'
}

# ---------------------------------------------------------------------------------------------
# The diagrams. Each prints one DOT graph.

diagram_platform() {
    local pocl_cu h100_cu pocl_name
    pocl_cu=$(device_value pocl compute_units)
    h100_cu=$(device_value h100 compute_units)
    pocl_name=$(device_value pocl name)
    header platform
    local cu pe pes cus=
    for cu in 0 1 last; do
        pes=
        for pe in 0 1 2 3; do pes+="<TD BGCOLOR=\"$PRIVATE\" WIDTH=\"30\">PE</TD>"; done
        local title="compute unit $cu"
        [ $cu = last ] && title="compute unit N−1"
        cus+="<TD><TABLE BORDER=\"1\" COLOR=\"$INK\" CELLBORDER=\"1\" CELLSPACING=\"3\" BGCOLOR=\"$LOCAL\"><TR><TD BORDER=\"0\" COLSPAN=\"4\">$title</TD></TR><TR>$pes</TR></TABLE></TD>"
        [ $cu = 1 ] && cus+="<TD BORDER=\"0\">…</TD>"
    done
    cat <<EOF
  rankdir=LR;
  host [label="host\n(the CPU running\nyour program)", fillcolor="#eeeeee"];
  device [shape=plain, label=<<TABLE BORDER="1" COLOR="$INK" CELLBORDER="0" CELLSPACING="6" BGCOLOR="$GLOBAL">
    <TR><TD COLSPAN="4"><B>device</B>: N compute units, each of processing elements (PE)</TD></TR>
    <TR>$cus</TR>
    <TR><TD COLSPAN="4" ALIGN="LEFT">N = $pocl_cu on this course's PoCL device ($pocl_name): a CU is a hardware thread</TD></TR>
    <TR><TD COLSPAN="4" ALIGN="LEFT">N = $h100_cu on an NVIDIA H100: a CU is a streaming multiprocessor</TD></TR>
  </TABLE>>];
  other [label="more devices\n(same model)", style="rounded,dashed"];
  host -> device [label="commands\nthrough a queue"];
  host -> other [style=dashed];
}
EOF
}

diagram_ndrange() {
    local gx=6 gy=4 lx=3 ly=2 arg
    for arg in "$@"; do
        case $arg in
            global=*x*) gx=${arg#global=}; gy=${gx#*x}; gx=${gx%x*} ;;
            local=*x*) lx=${arg#local=}; ly=${lx#*x}; lx=${lx%x*} ;;
            *) die "ndrange: unknown option '$arg' (known: global=XxY local=XxY)" ;;
        esac
    done
    [[ "$gx$gy$lx$ly" =~ ^[0-9]+$ ]] || die "ndrange: sizes must be numbers"
    [ $((gx % lx)) -eq 0 ] && [ $((gy % ly)) -eq 0 ] || die "ndrange: the global size ${gx}x$gy must be a multiple of the local size ${lx}x$ly"
    local colours=('#cfe2f3' '#d9ead3' '#fff2cc' '#ead1dc' '#d0e0e3' '#fce5cd')
    local wx wy x y cells rows=""
    for ((wy = 0; wy < gy / ly; wy++)); do
        rows+="<TR>"
        for ((wx = 0; wx < gx / lx; wx++)); do
            local colour=${colours[$(((wy * (gx / lx) + wx) % ${#colours[@]}))]}
            cells="<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\" BGCOLOR=\"$colour\">"
            for ((y = 0; y < ly; y++)); do
                cells+="<TR>"
                for ((x = 0; x < lx; x++)); do
                    cells+="<TD><FONT POINT-SIZE=\"10\">g ($((wx * lx + x)),$((wy * ly + y)))<BR/>l ($x,$y)<BR/>w ($wx,$wy)</FONT></TD>"
                done
                cells+="</TR>"
            done
            cells+="</TABLE>"
            rows+="<TD>$cells</TD>"
        done
        rows+="</TR>"
    done
    header ndrange
    cat <<EOF
  nd [shape=plain, label=<<TABLE BORDER="0" CELLSPACING="4">
    <TR><TD></TD><TD>dimension 0 (x) →</TD></TR>
    <TR><TD>dimension 1<BR/>(y) ↓</TD><TD><TABLE BORDER="2" CELLBORDER="0" CELLSPACING="4" COLOR="$INK">$rows</TABLE></TD></TR>
    <TR><TD></TD><TD ALIGN="LEFT">global size ($gx, $gy), local size ($lx, $ly): $((gx / lx)) × $((gy / ly)) work-groups of $((lx * ly)) work-items</TD></TR>
    <TR><TD></TD><TD ALIGN="LEFT">g = get_global_id(0), (1)    l = get_local_id    w = get_group_id</TD></TR>
    <TR><TD></TD><TD ALIGN="LEFT">g = w × local size + l, in each dimension</TD></TR>
  </TABLE>>];
}
EOF
}

diagram_memory() {
    local d
    declare -A v
    for d in pocl h100; do
        v[$d.global]=$(bytes "$(device_value $d global_mem)")
        v[$d.cache]=$(bytes "$(device_value $d global_cache)")
        v[$d.constant]=$(bytes "$(device_value $d constant_mem)")
        v[$d.local]=$(bytes "$(device_value $d local_mem)")
        v[$d.cu]=$(device_value $d compute_units)
    done
    header memory
    cat <<EOF
  rankdir=TB; newrank=true;
  hostmem [label="host memory\n(your std::vector)", fillcolor="#eeeeee"];
  subgraph cluster_device {
    label="device"; style="rounded"; color="$INK";
    global [fillcolor="$GLOBAL", label=<<B>global memory</B>: every work-item, and the host through buffers<BR/>PoCL: ${v[pocl.global]}  ·  H100: ${v[h100.global]}>];
    constant [fillcolor="$GLOBAL", label=<<B>constant</B>: read only<BR/>PoCL: ${v[pocl.constant]}  ·  H100: ${v[h100.constant]}>];
    cache [fillcolor="$FAINT", label=<global memory cache (automatic)<BR/>PoCL: ${v[pocl.cache]}  ·  H100: ${v[h100.cache]}>];
    subgraph cluster_cu0 {
      label="compute unit (PoCL: ${v[pocl.cu]}, H100: ${v[h100.cu]})"; style="rounded"; color="$INK";
      local0 [fillcolor="$LOCAL", label=<<B>local memory</B>: one work-group<BR/>PoCL: ${v[pocl.local]}  ·  H100: ${v[h100.local]}>];
      p00 [fillcolor="$PRIVATE", label=<<B>private</B><BR/>one work-item>];
      p01 [fillcolor="$PRIVATE", label=<<B>private</B><BR/>one work-item>];
    }
    subgraph cluster_cu1 {
      label="another compute unit"; style="rounded,dashed"; color="$INK";
      local1 [fillcolor="$LOCAL", label=<<B>local memory</B>>];
      p10 [fillcolor="$PRIVATE", label=<<B>private</B>>];
    }
  }
  hostmem -> global [label=" enqueueWriteBuffer,\n enqueueReadBuffer", dir=both];
  global -> cache [dir=both]; constant -> cache;
  cache -> local0 [dir=both]; cache -> local1 [dir=both];
  local0 -> p00 [dir=both]; local0 -> p01 [dir=both]; local1 -> p10 [dir=both];
  { rank=same; global; constant; }
  key [shape=plain, label=<smaller and faster downwards: registers next to the arithmetic, DRAM far away>];
  p01 -> key [style=invis];
}
EOF
}

# The matmul rungs. The pictures show a small N (8); the numbers that are the code's are named.
N_SHOWN=8
I_SHOWN=2   # the work-item's row
J_SHOWN=5   # its column

paint05_a() { [ "$1" -eq $I_SHOWN ] && echo "$GLOBAL"; true; }
paint05_b() { [ "$2" -eq $J_SHOWN ] && echo "$GLOBAL"; true; }
paint05_c() { [ "$1" -eq $I_SHOWN ] && [ "$2" -eq $J_SHOWN ] && echo "$WRITTEN"; true; }
paint07_a() { [ "$1" -eq $I_SHOWN ] && echo "$GLOBAL"; true; }
paint07_b() { echo "$GLOBAL"; }
paint07_c() { [ "$1" -eq $I_SHOWN ] && echo "$WRITTEN"; true; }
paint08_a() { [ "$1" -eq $I_SHOWN ] && echo "$PRIVATE"; true; }
paint08_b() { if [ "$2" -ge "$PASS_FROM" ] && [ "$2" -lt $((PASS_FROM + PASS_COLS)) ]; then echo "$GLOBAL"; else echo "$FAINT"; fi; }
paint08_c() {
    [ "$1" -eq $I_SHOWN ] || return 0
    if [ "$2" -ge "$PASS_FROM" ] && [ "$2" -lt $((PASS_FROM + PASS_COLS)) ]; then echo "$WRITTEN"; else echo '#f8e0e0'; fi
}
paint09_a() { [ "$1" -ge $GROUP_FROM ] && [ "$1" -lt $((GROUP_FROM + GROUP_ROWS)) ] && echo "$PRIVATE"; true; }
paint09_b() { [ "$2" -eq $J_SHOWN ] && printf '%s\t%s' "$LOCAL" "$(($1 % GROUP_ROWS))"; true; }
paint09_c() { [ "$1" -ge $GROUP_FROM ] && [ "$1" -lt $((GROUP_FROM + GROUP_ROWS)) ] && [ "$2" -eq $J_SHOWN ] && echo "$WRITTEN"; true; }

rung() {
    local name=$1 a_title=$2 b_title=$3 c_title=$4 caption=$5
    shift 5
    header "$name"
    cat <<EOF
  m [shape=plain, label=<<TABLE BORDER="0" CELLSPACING="6">
    <TR><TD>$(matrix "$a_title" $N_SHOWN $N_SHOWN paint${name#mmul}_a 20)</TD><TD>·</TD>
        <TD>$(matrix "$b_title" $N_SHOWN $N_SHOWN paint${name#mmul}_b 20)</TD><TD>→</TD>
        <TD>$(matrix "$c_title" $N_SHOWN $N_SHOWN paint${name#mmul}_c 20)</TD></TR>
    <TR><TD COLSPAN="5">$caption</TD></TR>
    <TR><TD COLSPAN="5">$(legend_lines "$@")</TD></TR>
  </TABLE>>];
}
EOF
}

diagram_mmul05() {
    rung mmul05 "A: row i" "B: column j" "C: element (i, j)" \
        "one work-item, (j, i) = (get_global_id(0), get_global_id(1)):<BR/>N loads of A and N of B for one element of C" \
        "$GLOBAL" "read from global memory" "$WRITTEN" "written"
}
diagram_mmul07() {
    rung mmul07 "A: row i, read N times" "B: all of it" "C: row i" \
        "one work-item, i = get_global_id(0), per row of C:<BR/>row i of A again for every column j" \
        "$GLOBAL" "read from global memory" "$WRITTEN" "written"
}
diagram_mmul08() {
    PASS_COLS=$(columns_per_pass)
    PASS_FROM=$(( (J_SHOWN / PASS_COLS) * PASS_COLS ))
    [ "$PASS_COLS" -le $N_SHOWN ] || PASS_COLS=$N_SHOWN
    rung mmul08 "A: row i → Awrk (once)" "B: $PASS_COLS columns per pass" "C: row i" \
        "row i of A copied once into private Awrk[MAX_N];<BR/>each pass over Awrk serves $PASS_COLS columns of B and C" \
        "$PRIVATE" "private (Awrk)" "$GLOBAL" "global: this pass" "$FAINT" "global: other passes" "$WRITTEN" "written in this pass"
}
diagram_mmul09() {
    local rows
    rows=$(rows_per_group)
    GROUP_ROWS=4
    GROUP_FROM=0
    rung mmul09 "A: each row private" "B: column j → Bwrk (local)" "C: column j of the group's rows" \
        "a work-group of $rows rows ($GROUP_ROWS drawn): each keeps its row of A private;<BR/>together they copy column j of B into local Bwrk, work-item l taking<BR/>elements l, l + $rows, … (the number in a cell: who copies it)" \
        "$PRIVATE" "private (Awrk)" "$LOCAL" "local (Bwrk), shared by the group" "$WRITTEN" "written"
}

# Exercise 10 in units of tiles: each cell is a TS x TS tile.
diagram_mmul10() {
    local ts tiles=4 bi=1 bj=2 t=1
    ts=$(tile_size)
    paint10_a() { if [ "$1" -eq $bi ]; then if [ "$2" -eq $t ]; then printf '%s\tt=%s' "$LOCAL" "$2"; else printf '%s\tt=%s' "$FAINT" "$2"; fi; fi; }
    paint10_b() { if [ "$2" -eq $bj ]; then if [ "$1" -eq $t ]; then printf '%s\tt=%s' "$LOCAL" "$1"; else printf '%s\tt=%s' "$FAINT" "$1"; fi; fi; }
    paint10_c() { [ "$1" -eq $bi ] && [ "$2" -eq $bj ] && echo "$WRITTEN"; true; }
    header mmul10
    cat <<EOF
  m [shape=plain, label=<<TABLE BORDER="0" CELLSPACING="6">
    <TR><TD>$(matrix "A: a row of tiles" $tiles $tiles paint10_a 34)</TD><TD>·</TD>
        <TD>$(matrix "B: a column of tiles" $tiles $tiles paint10_b 34)</TD><TD>→</TD>
        <TD>$(matrix "C: one tile" $tiles $tiles paint10_c 34)</TD></TR>
    <TR><TD COLSPAN="5">each cell is a tile of TS × TS = $ts × $ts elements; a work-group of $ts × $ts work-items computes one tile of C</TD></TR>
    <TR><TD COLSPAN="5">at step t the group copies tile t of its A row and of its B column into Awrk and Bwrk ($((2 * ts * ts)) floats of local memory)</TD></TR>
    <TR><TD COLSPAN="5">$(legend "$LOCAL" "local: tiles of step t = $t" "$FAINT" "global: the other steps" "$WRITTEN" "written at the end")</TD></TR>
  </TABLE>>];
}
EOF
}

# Exercise 10's loop over tiles, step by step, with its two barriers.
diagram_tile_loop() {
    local ts steps=3 t
    ts=$(tile_size)
    strip() {   # a strip of $steps tiles, tile $1 in local memory; $2 = h or v
        local i cells=""
        for ((i = 0; i < steps; i++)); do
            local c=$FAINT
            [ $i -eq "$1" ] && c=$LOCAL
            if [ "$2" = h ]; then cells+="<TD WIDTH=\"22\" HEIGHT=\"22\" FIXEDSIZE=\"TRUE\" BGCOLOR=\"$c\"></TD>"
            else cells+="<TR><TD WIDTH=\"22\" HEIGHT=\"22\" FIXEDSIZE=\"TRUE\" BGCOLOR=\"$c\"></TD></TR>"; fi
        done
        if [ "$2" = h ]; then echo "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\"><TR>$cells</TR></TABLE>"
        else echo "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\">$cells</TABLE>"; fi
    }
    header tile_loop
    echo '  rankdir=TB; nodesep=0.25; ranksep=0.25;'
    echo "  start [label=\"sum = 0   (N = $((steps * ts)) here: $steps tiles of $ts per strip)\", fillcolor=\"$PRIVATE\"];"
    for ((t = 0; t < steps; t++)); do
        cat <<EOF
  load$t [shape=plain, label=<<TABLE BORDER="1" CELLBORDER="0" COLOR="$INK" CELLSPACING="2" BGCOLOR="white"><TR><TD COLSPAN="4"><B>t = $t</B>: copy tile $t</TD></TR>
    <TR><TD>A</TD><TD>$(strip $t h)</TD><TD>B</TD><TD>$(strip $t v)</TD></TR>
    <TR><TD COLSPAN="4">into Awrk, Bwrk: one element<BR/>each per work-item</TD></TR></TABLE>>];
  bar1_$t [shape=octagon, style=filled, fillcolor="#f4cccc", label="barrier\ntiles complete"];
  mac$t [fillcolor="$LOCAL", label="$ts multiply-adds\nfrom local memory\nsum += Awrk · Bwrk"];
  bar2_$t [shape=octagon, style=filled, fillcolor="#f4cccc", label="barrier\nall done reading"];
  { rank=same; load$t; bar1_$t; mac$t; bar2_$t; }
  load$t -> bar1_$t -> mac$t -> bar2_$t;
EOF
    done
    echo "  start -> load0;"
    # The steps stacked under each other: an invisible edge aligns the loads, the real one loops back.
    for ((t = 1; t < steps; t++)); do
        echo "  load$((t - 1)) -> load$t [style=invis, weight=10];"
        echo "  bar2_$((t - 1)) -> load$t [constraint=false, label=\"next tile\"];"
    done
    echo "  done [label=\"C[row][col] = sum\", fillcolor=\"$WRITTEN\"];"
    echo "  bar2_$((steps - 1)) -> done;"
    echo "}"
}

diagram_pi_reduction() {
    local kind=${1:-} shown=8 i groups=4 group_size
    [ -n "$kind" ] || kind=$(pi_reduction_kind)
    case $kind in sum=tree|tree) kind=tree ;; sum=serial|serial) kind=serial ;; *) die "pi-reduction: unknown option '$kind' (known: sum=serial, sum=tree)" ;; esac
    group_size=$(pi_group_size)
    header pi_reduction
    echo '  rankdir=TB; nodesep=0.15; ranksep=0.3;'
    local cells="" sums=""
    for ((i = 0; i < shown; i++)); do
        echo "  w$i [fillcolor=\"$PRIVATE\", label=\"work-item $i\nsum of\nniters steps\", fontsize=11];"
        cells+="<TD PORT=\"s$i\" BGCOLOR=\"$LOCAL\">[$i]</TD>"
    done
    echo "  { rank=same; $(for ((i = 0; i < shown; i++)); do printf 'w%s; ' $i; done)}"
    echo "  local [shape=plain, label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"6\"><TR><TD BORDER=\"0\">local_sums</TD>$cells</TR></TABLE>>];"
    for ((i = 0; i < shown; i++)); do echo "  w$i -> local:s$i;"; done
    echo "  bar [shape=octagon, style=filled, fillcolor=\"#f4cccc\", label=\"barrier(CLK_LOCAL_MEM_FENCE): every slot written\"];"
    echo "  local -> bar;"
    local last=bar
    if [ $kind = serial ]; then
        echo "  add [fillcolor=\"$PRIVATE\", label=\"work-item 0 adds local_sums[0] … [$((shown - 1))] one by one\"];"
        echo "  bar -> add;"
        last=add
    else
        local width level=0
        for ((width = shown / 2; width >= 1; width /= 2)); do
            sums=""
            for ((i = 0; i < width; i++)); do sums+="<TD BGCOLOR=\"$LOCAL\">[$i] += [$((i + width))]</TD>"; done
            echo "  tree$level [shape=plain, label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"2\"><TR><TD BORDER=\"0\">$width work-items:</TD>$sums</TR></TABLE>>];"
            echo "  $last -> tree$level;"
            last=tree$level
            if [ $width -gt 1 ]; then
                echo "  tb$level [shape=octagon, style=filled, fillcolor=\"#f4cccc\", label=\"barrier\"];"
                echo "  $last -> tb$level;"
                last=tb$level
            fi
            level=$((level + 1))
        done
    fi
    cells=""
    for ((i = 0; i < groups; i++)); do
        local c=$FAINT
        [ $i -eq 1 ] && c=$GLOBAL
        cells+="<TD BGCOLOR=\"$c\">group $i</TD>"
    done
    cat <<EOF
  partial [shape=plain, label=<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="5"><TR><TD BORDER="0">partial_sums (global)</TD>$cells<TD BORDER="0">…</TD></TR></TABLE>>];
  $last -> partial [label=" this group is group 1"];
  host [fillcolor="#eeeeee", label="host: reads partial_sums, adds them, × step_size = π"];
  partial -> host;
  note [shape=plain, label="$shown work-items drawn; a group has up to $group_size (pi::plan's preferred size)"];
  host -> note [style=invis];
}
EOF
}

diagram_vector_lanes() {
    local niters w widths rows="" i
    widths=$(vector_widths)
    local max=0
    for w in $widths; do [ "$w" -gt $max ] && max=$w; done
    niters=$((2 * max + 3))
    for w in $widths; do
        local cells="" vec_end=$(( (niters / w) * w ))
        for ((i = 0; i < niters; i++)); do
            local c text=$i
            if [ $i -lt $vec_end ]; then
                c=$GLOBAL; [ $(((i / w) % 2)) -eq 1 ] && c='#9fc5e8'
            else c=$PRIVATE; fi
            cells+="<TD WIDTH=\"24\" BGCOLOR=\"$c\">$text</TD>"
        done
        local iters="" k
        for ((k = 0; k < vec_end / w; k++)); do iters+="<TD COLSPAN=\"$w\" BORDER=\"0\">float$w step $k</TD>"; done
        [ $((niters - vec_end)) -gt 0 ] && iters+="<TD COLSPAN=\"$((niters - vec_end))\" BORDER=\"0\">scalar tail: $((niters - vec_end))</TD>"
        rows+="<TR><TD BORDER=\"0\" ROWSPAN=\"2\" ALIGN=\"RIGHT\"><B>pi_vec$w</B><BR/>float$w, $w lanes</TD>$cells</TR><TR>$iters</TR>"
        rows+="<TR><TD BORDER=\"0\" COLSPAN=\"$((niters + 1))\"></TD></TR>"
    done
    local lanes=""
    for ((i = 0; i < max; i++)); do lanes+="<TD BGCOLOR=\"$GLOBAL\">s$(printf '%x' $i)</TD>"; done
    header vector_lanes
    cat <<EOF
  v [shape=plain, label=<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4">
    <TR><TD BORDER="0"></TD><TD BORDER="0" COLSPAN="$niters" ALIGN="LEFT">one work-item's niters = $niters steps (numbered from its first step)</TD></TR>
    $rows
    <TR><TD BORDER="0" ALIGN="RIGHT">the lanes of<BR/>a float$max</TD>$lanes<TD BORDER="0" COLSPAN="$((niters - max))" ALIGN="LEFT">  one operation: all lanes at once;<BR/>  at the end .lo + .hi, halving, to one sum</TD></TR>
    <TR><TD BORDER="0"></TD><TD BORDER="0" COLSPAN="$niters" ALIGN="LEFT">$(legend "$GLOBAL" "vector steps (alternate shades)" "$PRIVATE" "scalar tail: niters % width steps, one at a time")</TD></TR>
  </TABLE>>];
}
EOF
}

diagram_event_graph() {
    local first second joined
    read -r first second joined <<< "$(event_names)"
    header event_graph
    cat <<EOF
  rankdir=LR; ranksep=0.5;
  rel1 [shape=diamond, style=filled, fillcolor="#fff2cc", label="release_$first\n(user event)"];
  rel2 [shape=diamond, style=filled, fillcolor="#fff2cc", label="release_$second\n(user event)"];
  $first [fillcolor="$GLOBAL", label="$first\nscale: x = 2·a"];
  $second [fillcolor="$GLOBAL", label="$second\nscale: y = 3·b"];
  $joined [fillcolor="$WRITTEN", label="$joined\nadd: z = x + y"];
  host [fillcolor="#eeeeee", label="host:\nsetStatus(CL_COMPLETE)"];
  host -> rel1 [style=dashed]; host -> rel2 [style=dashed];
  rel1 -> $first [label="wait list"];
  rel2 -> $second [label="wait list"];
  $first -> $joined [label="wait list"];
  $second -> $joined [label="wait list"];
  label="an arrow: the command waits until the one it comes from is complete"; labelloc=b;
}
EOF
}

diagram_halo() {
    local wg extra side
    wg=$(halo_group_size)
    extra=$(halo_extra)
    side=$((extra / 2))
    local HALO='#ffe599'
    cell() { printf '<TD WIDTH="46" BGCOLOR="%s" PORT="%s"><FONT POINT-SIZE="10">%s</FONT></TD>' "$1" "$2" "$3"; }
    local in="" tile=""
    in+=$(cell "$FAINT" p0 "…")$(cell "$HALO" h0 "base−$side")
    in+=$(cell "$GLOBAL" b0 "base")$(cell "$GLOBAL" b1 "base+1")$(cell "$GLOBAL" bm "…")$(cell "$GLOBAL" bl "base+$((wg - 1))")
    in+=$(cell "$HALO" h1 "base+$wg")$(cell "$FAINT" p1 "…")
    tile+=$(cell "$HALO" t0 "[0]")$(cell "$LOCAL" t1 "[1]")$(cell "$LOCAL" t2 "[2]")$(cell "$LOCAL" tm "…")
    tile+=$(cell "$LOCAL" tl "[$wg]")$(cell "$HALO" t9 "[$((wg + extra - 1))]")
    header halo
    cat <<EOF
  rankdir=TB; ranksep=0.45;
  in [shape=plain, label=<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4"><TR><TD BORDER="0">in (global)  </TD>$in</TR></TABLE>>];
  tile [shape=plain, label=<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4"><TR><TD BORDER="0">tile (local)  </TD>$tile</TR></TABLE>>];
  in:h0 -> tile:t0; in:b0 -> tile:t1; in:bl -> tile:tl; in:h1 -> tile:t9;
  copy [shape=plain, label=<one async_work_group_copy per group: $wg + $extra = $((wg + extra)) floats,<BR/>its own $wg plus $side neighbour on each side (the halo), then wait_group_events>];
  in -> copy [style=invis];
  use [fillcolor="$PRIVATE", label="work-item l reads tile[l], tile[l+1], tile[l+2]\nout[base + l] = their average"];
  tile:t1 -> use [label=" l = 0"];
  key [shape=plain, label=<$(legend "$HALO" "halo: a neighbour group's element" "$LOCAL" "the group's own $wg elements" "$FAINT" "other groups")>];
  use -> key [style=invis];
  { rank=same; copy; tile; }
}
EOF
}

names=(platform ndrange memory mmul05 mmul07 mmul08 mmul09 mmul10 tile-loop pi-reduction vector-lanes event-graph halo)

dot_of() {
    local name=$1
    shift
    local known=0 n
    for n in "${names[@]}"; do [ "$n" = "$name" ] && known=1; done
    [ $known -eq 1 ] || die "unknown diagram '$name' (known: ${names[*]})"
    "diagram_${name//-/_}" "$@"
}

# SVG through dot, with a comment holding the hash of the DOT source: the README check compares
# that hash, not the SVG, which differs between Graphviz versions.
svg_of() {
    command -v dot >/dev/null || die "Graphviz's dot is missing. Fix: apt-get install graphviz (scripts/setup.sh --all installs it)"
    local source hash svg errors
    source=$(dot_of "$@") || exit 1
    hash=$(printf '%s\n' "$source" | sha256sum | cut -c1-16)
    # dot reports a bad HTML-like label on stderr and still draws a fallback: treat it as fatal.
    errors=$(mktemp)
    svg=$(printf '%s\n' "$source" | dot -Tsvg 2> "$errors") || true
    if grep -q -i error "$errors" || [ -z "$svg" ]; then
        echo "diagram.sh: dot could not draw '$*':" >&2
        cat "$errors" >&2
        rm -f "$errors"
        exit 1
    fi
    rm -f "$errors"
    printf '%s\n' "$svg" | sed "1a <!-- slides/tools/diagram.sh $* · source $hash -->"
}

readmes() {
    local check=$1 stale=0 readme dir name svg want have
    for readme in exercises/[0-9][0-9]_*/README.md; do
        dir=$(dirname "$readme")
        for name in $(grep -o '](diagrams/[a-z0-9-]*\.svg)' "$readme" | sed 's/](diagrams\/\(.*\)\.svg)/\1/' | sort -u); do
            svg=$dir/diagrams/$name.svg
            want=$(dot_of "$name" | sha256sum | cut -c1-16) || exit 1
            have=$(sed -n '2s/.* · source \([0-9a-f]*\) -->/\1/p' "$svg" 2>/dev/null || true)
            if [ "$want" = "$have" ]; then continue; fi
            if [ "$check" = 1 ]; then
                echo "stale: $svg (${have:+its source changed}${have:-missing}); run slides/tools/diagram.sh --readmes" >&2
                stale=$((stale + 1))
            else
                mkdir -p "$dir/diagrams"
                svg_of "$name" > "$svg.tmp" && mv "$svg.tmp" "$svg"
                echo "wrote $svg"
            fi
        done
        # An SVG no README shows any longer is left over.
        for svg in "$dir"/diagrams/*.svg; do
            [ -e "$svg" ] || continue
            name=$(basename "$svg")
            grep -q "](diagrams/$name)" "$readme" || { echo "unused: $svg (no '](diagrams/$name)' in $readme): delete it" >&2; stale=$((stale + 1)); }
        done
    done
    [ $stale -eq 0 ] || exit 1
}

case ${1:-} in
    --names) printf '%s\n' "${names[@]}" ;;
    --svg) shift; [ $# -ge 1 ] || { echo "usage: diagram.sh --svg NAME [key=value ...]" >&2; exit 2; }; svg_of "$@" ;;
    --readmes) case ${2:-} in --check) readmes 1 ;; "") readmes 0 ;; *) echo "usage: diagram.sh --readmes [--check]" >&2; exit 2 ;; esac ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" ;;
    ""|-*) echo "usage: diagram.sh [--svg] NAME [key=value ...] | --names | --readmes [--check] (see --help)" >&2; exit 2 ;;
    *) dot_of "$@" ;;
esac
