#!/usr/bin/env bash
# Renders every deck into OUTDIR and checks the result:
#   - each deck has 12 to 25 slides ("## " headings), no "# " heading, and ends with "## Exercises"
#     naming existing exercises/NN_name/README.md files; together the decks name all exercises
#   - NN-name.html exists, holds exactly one slide per heading plus the title slide, and no
#     "!include" or "!chart" text; each included selection's first line is in it; each chart is
#     embedded as an SVG image
#   - NN-name.pdf exists and has one page per slide plus the title page (a slide whose content
#     is too tall spills onto an extra page; the check names it)
#
#   slides/check_slides.sh OUTDIR [render_slides.sh options, e.g. --bench-csv FILE]
#
# Exits 0 when everything holds, 1 with one line per problem otherwise, 2 on bad usage.
set -uo pipefail

[ $# -ge 1 ] || { echo "usage: slides/check_slides.sh OUTDIR [--bench-csv FILE]" >&2; exit 2; }
out=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
case $out in /*) ;; *) out=$PWD/$out ;; esac
# The options go to render_slides.sh; a file name in them is made absolute before the cd.
render_args=()
while [ $# -gt 0 ]; do
    case $1 in
        --bench-csv) case ${2:?--bench-csv needs a file} in /*) f=$2 ;; *) f=$PWD/$2 ;; esac
                     render_args+=(--bench-csv "$f"); shift 2 ;;
        *) render_args+=("$1"); shift ;;
    esac
done
cd "$root" || exit 1

problems=0
problem() {
    echo "FAIL $*" >&2
    problems=$((problems + 1))
}

start=$(date +%s.%N)
if ! scripts/render_slides.sh "${render_args[@]}" "$out"; then
    echo "FAIL render: scripts/render_slides.sh exited non-zero (its message is above)" >&2
    exit 1
fi
end=$(date +%s.%N)

# Page count of a PDF: pdfinfo where poppler-utils is installed, else the page objects.
pdf_pages() {
    if command -v pdfinfo >/dev/null; then
        pdfinfo "$1" 2>/dev/null | awk '/^Pages:/ { print $2 }'
    else
        grep -a -c -E '/Type ?/Page([^s]|$)' "$1"
    fi
}

# The deck's lines outside fenced code blocks.
outside_fences() {
    awk '/^(```|~~~)/ { fenced = !fenced; next } !fenced' "$1"
}

# The visible text of an HTML file: tags removed, the entities pandoc writes decoded.
html_text() {
    sed -e 's/<[^>]*>//g' -e 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&#39;/'\''/g; s/&amp;/\&/g' "$1"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/check-slides.XXXXXX")
trap 'rm -rf "$work"' EXIT

printf '%-22s %7s %6s %9s %7s  %s\n' deck slides pages includes charts result
named_exercises=()
for deck in slides/[0-9][0-9]-*.md; do
    name=$(basename "$deck" .md)
    html=$out/$name.html
    pdf=$out/$name.pdf
    before=$problems

    outside_fences "$deck" > "$work/body"
    slides=$(grep -c '^## ' "$work/body")
    if grep -q '^# ' "$work/body"; then
        problem "$deck: has a level-1 heading ('# '); slides start with '## '"
    fi
    if [ "$slides" -lt 12 ] || [ "$slides" -gt 25 ]; then
        problem "$deck: $slides slides; a deck should have 12 to 25"
    fi
    last=$(grep '^## ' "$work/body" | tail -n 1)
    [ "$last" = "## Exercises" ] || problem "$deck: the last slide is '$last', not '## Exercises'"
    # The exercise folders the Exercises slide names must exist.
    exercise_refs=$(sed -n '/^## Exercises/,$p' "$work/body" | grep -o 'exercises/[0-9][0-9]_[a-z_0-9]*/README\.md' | sort -u)
    [ -n "$exercise_refs" ] || problem "$deck: the Exercises slide names no exercises/NN_name/README.md"
    for ref in $exercise_refs; do
        [ -f "$ref" ] || problem "$deck: the Exercises slide names $ref, which does not exist"
        named_exercises+=("$ref")
        number=${ref#exercises/}; number=${number%%_*}
        grep -q "Exercise $number — $ref" "$work/body" ||
            problem "$deck: write the exercise as 'Exercise $number — $ref'"
    done

    # Directives, as the renderer resolved them.
    if ! slides/tools/expand.sh --list --chart-dir "$work/charts" "$deck" > "$work/list"; then
        problem "$deck: its directives do not resolve (message above)"
        continue
    fi
    includes=$(grep -c '^include' "$work/list")
    charts=$(grep -c '^chart' "$work/list")

    if [ ! -s "$html" ]; then
        problem "$deck: $html is missing or empty"
    else
        html_slides=$(grep -o '<section[^>]*class="slide level2"' "$html" | wc -l)
        html_titles=$(grep -c '<section class="title">' "$html")
        [ "$html_slides" -eq "$slides" ] ||
            problem "$deck: $html has $html_slides slides, the deck has $slides '## ' headings"
        [ "$html_titles" -eq 1 ] || problem "$deck: $html has $html_titles title slides, expected 1"
        if grep -n -E '!include|!chart' "$html" > "$work/left"; then
            problem "$deck: $html still holds a directive: $(head -n 1 "$work/left" | cut -c1-120)"
        fi
        html_text "$html" > "$work/text"
        while IFS=$'\t' read -r kind line first; do
            [ "$kind" = include ] || continue
            trimmed=$(printf '%s' "$first" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')
            grep -q -F -- "$trimmed" "$work/text" ||
                problem "$deck:$line: the included code's first line is not in $html: $trimmed"
        done < "$work/list"
        svgs=$(grep -o 'data:image/svg+xml' "$html" | wc -l)
        [ "$svgs" -ge "$charts" ] || problem "$deck: $charts chart(s) in the deck, $svgs SVG image(s) in $html"
    fi

    pages=-
    if [ ! -s "$pdf" ]; then
        problem "$deck: $pdf is missing or empty"
    else
        pages=$(pdf_pages "$pdf")
        if [ -z "$pages" ] || [ "$pages" -ne $((slides + 1)) ]; then
            detail=
            if command -v pdftotext >/dev/null && [ -n "$pages" ]; then
                # A page that does not start with a slide heading holds the rest of the slide
                # before it. The headings as rendered (smart quotes and all) come from the HTML.
                grep -o '<h2[^>]*>.*</h2>' "$html" | sed -e 's/<[^>]*>//g' -e 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g' > "$work/headings"
                previous=title
                for ((p = 2; p <= pages; p++)); do
                    top=$(pdftotext -f "$p" -l "$p" "$pdf" - 2>/dev/null | sed -n '/[^[:space:]]/{s/^[[:space:]]*//;s/[[:space:]]*$//;p;q}')
                    if [ -n "$top" ] && awk -v top="$top" 'index($0, top) == 1 { found = 1 } END { exit !found }' "$work/headings"; then
                        previous=$top
                    else
                        detail+=" '$previous' spills onto page $p;"
                    fi
                done
            fi
            problem "$deck: $pdf has ${pages:-no} pages, expected $((slides + 1)) (title + $slides slides):${detail:- a slide is too tall}"
        fi
    fi

    result=ok
    [ $problems -eq $before ] || result=FAILED
    printf '%-22s %7s %6s %9s %7s  %s\n' "$name" "$slides" "$pages" "$includes" "$charts" "$result"
done

# Every exercise of the course is named on some Exercises slide.
for dir in exercises/[0-9][0-9]_*/; do
    ref=${dir}README.md
    printf '%s\n' "${named_exercises[@]}" | grep -q -x -F "$ref" || problem "no deck's Exercises slide names $ref"
done

awk -v s="$start" -v e="$end" 'BEGIN { printf "render time: %.1f s\n", e - s }'
if [ $problems -gt 0 ]; then
    echo "check_slides: $problems problem(s)" >&2
    exit 1
fi
echo "check_slides: all decks OK"
