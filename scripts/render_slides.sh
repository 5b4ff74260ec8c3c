#!/usr/bin/env bash
# Renders every lecture deck (slides/NN-*.md) to HTML and PDF.
#
#   scripts/render_slides.sh [--bench-csv FILE] [--deck NAME]... [OUTDIR]
#
#   OUTDIR        where NN-name.html and NN-name.pdf go (default build/slides/)
#   --bench-csv   the matmul bench's CSV (build/bin/mmul_bench writes bench_mmul.csv) to draw the
#                 ladder chart from; without it the committed slides/data/ladder_pocl.csv is drawn
#   --deck NAME   render only this deck (e.g. 04-matmul-ladder, or a path to a .md file);
#                 may be repeated
#   --html-only   skip the PDFs
#
# Needs pandoc, wkhtmltopdf and Graphviz (Debian packages pandoc, wkhtmltopdf, graphviz); see
# slides/README.md. The "!include", "!chart" and "!diagram" directives of the decks are expanded first by
# slides/tools/expand.sh; one that does not resolve stops the render with a message naming the
# deck, the line and the reason, and the exit status is 1.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

# Paths on the command line are relative to where the script is called from; the rest of the
# work happens at the repository root.
absolute() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
out=$root/build/slides
bench_csv=
html_only=0
decks=()
while [ $# -gt 0 ]; do
    case $1 in
        --bench-csv) bench_csv=$(absolute "${2:?--bench-csv needs a file}"); shift 2 ;;
        --deck)
            case ${2:?--deck needs a name} in
                */*) decks+=("$(absolute "$2")") ;;         # a path to a deck file
                *) decks+=("$root/slides/${2%.md}.md") ;;   # a deck's name
            esac
            shift 2 ;;
        --html-only) html_only=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        -*) echo "render_slides: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) out=$(absolute "$1"); shift ;;
    esac
done
cd "$root"
[ ${#decks[@]} -gt 0 ] || decks=(slides/[0-9][0-9]-*.md)
[ -e "${decks[0]}" ] || { echo "render_slides: no decks found in slides/" >&2; exit 1; }

missing=()
command -v pandoc >/dev/null || missing+=(pandoc)
command -v dot >/dev/null || missing+=(graphviz)
[ $html_only -eq 1 ] || command -v wkhtmltopdf >/dev/null || missing+=(wkhtmltopdf)
if [ ${#missing[@]} -gt 0 ]; then
    echo "render_slides: missing ${missing[*]}. Fix: apt-get install ${missing[*]}" >&2
    exit 1
fi
if [ -n "$bench_csv" ] && [ ! -f "$bench_csv" ]; then
    echo "render_slides: --bench-csv: no such file: $bench_csv" >&2
    exit 1
fi

mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/render-slides.XXXXXX")
trap 'rm -rf "$work"' EXIT
# wkhtmltopdf runs Qt without a display; give it a private runtime folder so that it stays quiet.
export QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$work/runtime"
mkdir -m 700 "$work/runtime"

theme=slides/theme
expand_args=(--chart-dir "$work/charts")
[ -n "$bench_csv" ] && expand_args+=(--bench-csv "$bench_csv")

start=$(date +%s.%N)
for deck in "${decks[@]}"; do
    [ -f "$deck" ] || { echo "render_slides: no such deck: $deck" >&2; exit 1; }
    name=$(basename "$deck" .md)
    md="$work/$name.md"
    if ! slides/tools/expand.sh "${expand_args[@]}" "$deck" > "$md"; then
        echo "render_slides: $deck: not rendered (see the message above)" >&2
        exit 1
    fi
    # The deck as slides: one "## " heading is one slide; --self-contained embeds the styles,
    # the script and the charts, so the file works offline and on its own.
    pandoc "$md" --from markdown --to dzslides --slide-level=2 --self-contained \
        --resource-path=.:slides --highlight-style=tango \
        --css "$theme/slides.css" --css "$theme/dzslides.css" \
        --output "$out/$name.html"
    if [ $html_only -eq 0 ]; then
        # The same slides as one page each, for wkhtmltopdf.
        pandoc "$md" --from markdown --to html5 --section-divs --self-contained \
            --resource-path=.:slides --highlight-style=tango \
            --template "$theme/print-template.html" \
            --css "$theme/slides.css" --css "$theme/print.css" \
            --output "$work/$name.print.html"
        wkhtmltopdf --quiet --page-width 736pt --page-height 414pt \
            --margin-top 0 --margin-bottom 0 --margin-left 0 --margin-right 0 \
            --disable-javascript --title "$name" \
            "$work/$name.print.html" "$out/$name.pdf" 2> "$work/wkhtmltopdf.log" || {
            cat "$work/wkhtmltopdf.log" >&2
            echo "render_slides: $deck: wkhtmltopdf failed" >&2
            exit 1
        }
        echo "rendered $out/$name.html $out/$name.pdf"
    else
        echo "rendered $out/$name.html"
    fi
done
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v n=${#decks[@]} 'BEGIN { printf "%d deck(s) in %.1f s\n", n, e - s }'
