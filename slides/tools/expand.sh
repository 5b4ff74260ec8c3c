#!/usr/bin/env bash
# Expands one deck's directives into plain Markdown for pandoc (see slides/README.md):
#
#   !include FILE [SELECTION]   code from a file of this repository, as a fenced block that keeps
#                               the file's line numbers
#   !chart CSV [n=N] [scale=log|linear]
#                               a bar chart of the bench's GFLOPS column, drawn as SVG
#   !diagram NAME [key=value ...]
#                               a diagram drawn by slides/tools/diagram.sh (Graphviz) as SVG
#
# Usage: slides/tools/expand.sh [--bench-csv FILE] [--chart-dir DIR] [--list] DECK.md
#   Run from the repository root: FILE and CSV are relative to it. Writes the Markdown to stdout.
#   --bench-csv  the file that "!chart @bench" draws (default slides/data/ladder_pocl.csv)
#   --chart-dir  where the SVG files go (default: a new folder under $TMPDIR, left for pandoc)
#   --list       instead of Markdown, one line per directive: "include<TAB>LINE<TAB>FIRST-CODE-LINE",
#                "chart<TAB>LINE<TAB>SVG" or "diagram<TAB>LINE<TAB>SVG<TAB>NAME"; used by
#                slides/check_slides.sh
# Any directive that does not resolve stops the expansion with "DECK:LINE: DIRECTIVE: reason" on
# stderr and exit status 1.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bench_csv=slides/data/ladder_pocl.csv
chart_dir=
list=0
while [ $# -gt 0 ]; do
    case $1 in
        --bench-csv) bench_csv=${2:?--bench-csv needs a file}; shift 2 ;;
        --chart-dir) chart_dir=${2:?--chart-dir needs a folder}; shift 2 ;;
        --list) list=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        -*) echo "expand.sh: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -eq 1 ] || { echo "usage: expand.sh [--bench-csv FILE] [--chart-dir DIR] [--list] DECK.md" >&2; exit 2; }
deck=$1
[ -f "$deck" ] || { echo "expand.sh: no such deck: $deck" >&2; exit 1; }

deck_line=0
directive=
fail() {
    echo "$deck:$deck_line: $directive: $*" >&2
    exit 1
}

# The lines of the selected file, loaded by load_file.
file_lines=()
load_file() {
    local path=$1
    case $path in
        /*) fail "give the path relative to the repository root, not $path" ;;
        *..*) fail "the path may not contain '..'" ;;
    esac
    [ -e "$path" ] || fail "file not found: $path"
    [ -f "$path" ] || fail "not a regular file: $path"
    [ -r "$path" ] || fail "file not readable: $path"
    mapfile -t file_lines < "$path"
    [ ${#file_lines[@]} -gt 0 ] || fail "file is empty: $path"
}

# The one line (1-based) of file_lines that matches the ERE $1; fails on none or several.
unique_match() {
    local re=$1 what=$2 i hits=()
    for i in "${!file_lines[@]}"; do
        [[ ${file_lines[i]} =~ $re ]]
        case $? in
            0) hits+=($((i + 1))) ;;
            2) fail "/$re/ is not a valid extended regular expression" ;;
        esac
    done
    [ ${#hits[@]} -ge 1 ] || fail "$what /$re/ matches no line of $path"
    [ ${#hits[@]} -eq 1 ] || fail "$what /$re/ matches ${#hits[@]} lines of $path (lines ${hits[*]}): make it unique"
    echo "${hits[0]}"
}

# The line that closes the brace block opening on or after line $1. Braces inside string and
# character literals and // or one-line /* */ comments are not counted.
block_end() {
    local start=$1 i depth=0 opened=0 code opens closes
    for ((i = start; i <= ${#file_lines[@]}; i++)); do
        code=$(printf '%s\n' "${file_lines[i - 1]}" |
            sed -E 's/"([^"\\]|\\.)*"//g; s/'\''([^'\''\\]|\\.)'\''//g; s:/\*.*\*/::g; s://.*$::')
        opens=${code//[^\{]/}
        closes=${code//[^\}]/}
        if [ $opened -eq 0 ] && [ ${#opens} -eq 0 ] && [[ $code =~ \;[[:space:]]*$ ]]; then
            fail "a statement ends on line $i of $path before any block opens"
        fi
        depth=$((depth + ${#opens} - ${#closes}))
        [ ${#opens} -gt 0 ] && opened=1
        if [ $opened -eq 1 ] && [ $depth -le 0 ]; then
            echo "$i"
            return
        fi
    done
    fail "the block opening at or after line $start of $path never closes"
}

# Sets sel_from and sel_to (1-based, inclusive) for the selection text $1 of the loaded file.
sel_from=0
sel_to=0
select_lines() {
    local sel=$1 n=${#file_lines[@]} count
    if [ -z "$sel" ]; then
        sel_from=1; sel_to=$n
    elif [[ $sel =~ ^([0-9]+)-([0-9]+)$ ]]; then
        sel_from=${BASH_REMATCH[1]}; sel_to=${BASH_REMATCH[2]}
        if [ "$sel_from" -lt 1 ] || [ "$sel_from" -gt "$sel_to" ]; then fail "bad line range $sel"; fi
        [ "$sel_to" -le "$n" ] || fail "line range $sel is past the end of $path ($n lines)"
    elif [[ $sel =~ ^/([^/]+)/[[:space:]]+to[[:space:]]+/([^/]+)/$ ]]; then
        local start_re=${BASH_REMATCH[1]} end_re=${BASH_REMATCH[2]} i
        [[ x =~ $end_re ]]; [ $? -ne 2 ] || fail "/$end_re/ is not a valid extended regular expression"
        sel_from=$(unique_match "$start_re" "start pattern") || exit 1
        sel_to=0
        for ((i = sel_from + 1; i <= n; i++)); do
            if [[ ${file_lines[i - 1]} =~ $end_re ]]; then sel_to=$i; break; fi
        done
        [ "$sel_to" -gt 0 ] || fail "end pattern /$end_re/ matches no line after line $sel_from of $path"
    elif [[ $sel =~ ^/([^/]+)/[[:space:]]+block$ ]]; then
        sel_from=$(unique_match "${BASH_REMATCH[1]}" "pattern") || exit 1
        sel_to=$(block_end "$sel_from") || exit 1
    elif [[ $sel =~ ^/([^/]+)/[[:space:]]+\+([0-9]+)$ ]]; then
        count=${BASH_REMATCH[2]}
        [ "$count" -ge 1 ] || fail "the line count must be at least 1"
        sel_from=$(unique_match "${BASH_REMATCH[1]}" "pattern") || exit 1
        sel_to=$((sel_from + count - 1))
        [ "$sel_to" -le "$n" ] || fail "$count lines from line $sel_from run past the end of $path ($n lines)"
    elif [[ $sel =~ ^/([^/]+)/$ ]]; then
        sel_from=$(unique_match "${BASH_REMATCH[1]}" "pattern") || exit 1
        sel_to=$n
    else
        fail "cannot read the selection '$sel' (expected: nothing, A-B, /RE/, /RE/ +K, /RE/ block or /RE/ to /RE2/)"
    fi
}

language_of() {
    case $1 in
        *.cl) echo opencl ;;
        *.cpp|*.hpp|*.cc|*.h) echo cpp ;;
        *.cmake|*/CMakeLists.txt) echo cmake ;;
        *.sh) echo bash ;;
        *.toml) echo toml ;;
        *) echo default ;;
    esac
}

chart_count=0
deck_base=$(basename "$deck" .md)

expand_include() {
    local rest=$1 path sel
    path=${rest%%[[:space:]]*}
    sel=${rest#"$path"}
    sel=${sel#"${sel%%[![:space:]]*}"}   # trim leading blanks
    sel=${sel%"${sel##*[![:space:]]}"}   # trim trailing blanks
    [ -n "$path" ] || fail "no file named"
    load_file "$path"
    select_lines "$sel"

    # Remove the indentation the selected lines share, so that code from inside a function
    # starts at the left margin.
    local i line indent=100000 lead
    for ((i = sel_from; i <= sel_to; i++)); do
        line=${file_lines[i - 1]}
        [[ $line =~ ^[[:space:]]*$ ]] && continue
        lead=${line%%[![:space:]]*}
        [ ${#lead} -lt "$indent" ] && indent=${#lead}
    done
    [ "$indent" -lt 100000 ] || fail "the selection (lines $sel_from-$sel_to of $path) holds only blank lines"

    local first=
    local body=() widest=0
    for ((i = sel_from; i <= sel_to; i++)); do
        line=${file_lines[i - 1]}
        line=${line:indent}
        [[ $line == '~~~~~~~~'* ]] && fail "line $i of $path starts with the fence ~~~~~~~~"
        [ -z "$first" ] && [[ $line =~ [^[:space:]] ]] && first=$line
        [ ${#line} -gt "$widest" ] && widest=${#line}
        body+=("$line")
    done

    if [ $list -eq 1 ]; then
        printf 'include\t%s\t%s\n' "$deck_line" "$first"
        return
    fi
    # The code's size on the slide (slides/theme/slides.css): as large as its longest line and
    # its line count allow. Beside the line numbers a slide holds 82 characters at 20 px, 98 at
    # 17 px, 112 at 15 px and 130 at 13 px.
    local classes
    classes=".$(language_of "$path") .numberLines"
    local lines=$((sel_to - sel_from + 1))
    [ "$widest" -le 130 ] || fail "the selection has a line of $widest characters; at most 130 fit on a slide"
    if [ "$lines" -le 14 ] && [ "$widest" -le 82 ]; then
        classes+=" .large"
    elif [ "$lines" -le 20 ] && [ "$widest" -le 98 ]; then
        :
    elif [ "$lines" -le 26 ] && [ "$widest" -le 112 ]; then
        classes+=" .small"
    else
        classes+=" .tiny"
    fi
    local where="lines $sel_from–$sel_to"
    [ "$sel_from" -eq 1 ] && [ "$sel_to" -eq ${#file_lines[@]} ] && where="whole file"
    printf '[%s · %s]{.source}\n\n' "$path" "$where"
    printf '~~~~~~~~ {%s startFrom="%s"}\n' "$classes" "$sel_from"
    printf '%s\n' "${body[@]}"
    printf '~~~~~~~~\n'
}

expand_chart() {
    local rest=$1 csv opt n='' scale=log
    read -r csv rest <<< "$rest"
    [ -n "$csv" ] || fail "no CSV named"
    [ "$csv" = "@bench" ] && csv=$bench_csv
    for opt in $rest; do
        case $opt in
            n=*) n=${opt#n=}; [[ $n =~ ^[0-9]+$ ]] || fail "n must be a number, not '$n'" ;;
            scale=log|scale=linear) scale=${opt#scale=} ;;
            *) fail "unknown chart option '$opt' (known: n=N, scale=log|linear)" ;;
        esac
    done
    [ -f "$csv" ] || fail "CSV not found: $csv"
    if [ -z "$chart_dir" ]; then
        chart_dir=$(mktemp -d "${TMPDIR:-/tmp}/slides-charts.XXXXXX") || fail "cannot create a folder for the chart"
    fi
    mkdir -p "$chart_dir" || fail "cannot create $chart_dir"
    chart_count=$((chart_count + 1))
    local svg="$chart_dir/$deck_base-chart$chart_count.svg" err
    if ! err=$(awk -v want_n="$n" -v scale="$scale" -v source="$csv" -f "$here/chart.awk" "$csv" 2>&1 > "$svg"); then
        fail "${err:-chart.awk failed on $csv}"
    fi
    if [ $list -eq 1 ]; then
        printf 'chart\t%s\t%s\n' "$deck_line" "$svg"
        return
    fi
    printf '![GFLOPS from %s](%s){.chart}\n' "$csv" "$svg"
}

diagram_count=0
expand_diagram() {
    local rest=$1 name err
    read -r name rest <<< "$rest"
    [ -n "$name" ] || fail "no diagram named (slides/tools/diagram.sh --names lists them)"
    if [ -z "$chart_dir" ]; then
        chart_dir=$(mktemp -d "${TMPDIR:-/tmp}/slides-charts.XXXXXX") || fail "cannot create a folder for the diagram"
    fi
    mkdir -p "$chart_dir" || fail "cannot create $chart_dir"
    diagram_count=$((diagram_count + 1))
    local svg="$chart_dir/$deck_base-diagram$diagram_count-$name.svg"
    # shellcheck disable=SC2086 # the options are words
    if ! err=$("$here/diagram.sh" --svg "$name" $rest 2>&1 > "$svg"); then
        fail "${err:-diagram.sh failed}"
    fi
    if [ $list -eq 1 ]; then
        printf 'diagram\t%s\t%s\t%s\n' "$deck_line" "$svg" "$name"
        return
    fi
    # Scaled to fill the room under the heading (1180 x 540 px, leaving a line for a note), as
    # explicit sizes: the PDF's old WebKit knows no object-fit. Graphviz gives the size in pt;
    # at most twice that, so that a small graph's text stays the size of the slide's.
    local size
    size=$(sed -n -E '0,/<svg /{s/.*<svg width="([0-9.]+)pt" height="([0-9.]+)pt".*/\1 \2/p}' "$svg")
    [ -n "$size" ] || fail "cannot read the size of $svg"
    size=$(awk -v s="$size" 'BEGIN { split(s, d, " "); k = 1180 / d[1]; if (540 / d[2] < k) k = 540 / d[2]; if (k > 2) k = 2
                                     printf "width=%d height=%d", d[1] * k, d[2] * k }')
    # No alt text: pandoc would turn it into a caption under the picture, and the slide has no room.
    printf '![](%s){.diagram %s}\n' "$svg" "$size"
}

fence=
fence_re='^(```+|~~~+)'
include_re='^!include([[:space:]]+(.*))?$'
chart_re='^!chart([[:space:]]+(.*))?$'
diagram_re='^!diagram([[:space:]]+(.*))?$'
while IFS= read -r line || [ -n "$line" ]; do
    deck_line=$((deck_line + 1))
    # Directives inside fenced code blocks of the deck itself are left alone.
    if [[ $line =~ $fence_re ]]; then
        if [ -z "$fence" ]; then fence=${BASH_REMATCH[1]}
        elif [[ $line == "$fence" || $line =~ ^${fence}[[:space:]]*$ ]]; then fence=
        fi
    fi
    if [ -z "$fence" ] && [[ $line =~ $include_re ]]; then
        directive=$line
        expand_include "${BASH_REMATCH[2]}"
    elif [ -z "$fence" ] && [[ $line =~ $chart_re ]]; then
        directive=$line
        expand_chart "${BASH_REMATCH[2]}"
    elif [ -z "$fence" ] && [[ $line =~ $diagram_re ]]; then
        directive=$line
        expand_diagram "${BASH_REMATCH[2]}"
    elif [ $list -eq 0 ]; then
        printf '%s\n' "$line"
    fi
done < "$deck"
exit 0
