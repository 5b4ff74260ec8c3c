#!/usr/bin/env bash
# Renders every deck into OUTDIR and checks the result:
#   - each deck has 12 to 25 slides ("## " headings), no "# " heading, and ends with "## Exercises"
#     naming existing exercises/NN_name/README.md files; together the decks name all exercises
#   - NN-name.html exists, holds exactly one slide per heading plus the title slide, and no
#     "!include" or "!chart" text; each included selection's first line is in it; each chart is
#     embedded as an SVG image
#   - NN-name.pdf exists and has one page per slide plus the title page (a slide whose content
#     is too tall spills onto an extra page; the check names it)
#   - each "!diagram" is drawn: its SVG holds the labels listed below for that diagram, the HTML
#     embeds an SVG holding them, and its PDF page shows them as text, is drawn in vectors (no
#     image on the page) and is not blank under the heading (the page as PNG, in
#     OUTDIR/diagram-pages/, for a person to look at); the README diagrams are up to date
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

# What each diagram must show, written here rather than taken from the drawing: a label for the
# idea, and one for a number or name that comes from the code.
declare -A diagram_labels=(
    [platform]="compute unit|PE|host|H100"
    [ndrange]="get_local_id|get_group_id|g (0,0)|w (1,1)"
    [memory]="global memory|local memory|private|H100"
    [mmul05]="column j|row i|get_global_id(1)"
    [mmul07]="row i|all of it"
    [mmul08]="Awrk|columns per pass"
    [mmul09]="Bwrk|private"
    [mmul10]="TS × TS|Awrk|Bwrk"
    [tile-loop]="barrier|multiply-adds|copy tile"
    [pi-reduction]="local_sums|partial_sums|barrier"
    [vector-lanes]="scalar tail|float4|float8"
    [event-graph]="wait list|user event|joined"
    [halo]="async_work_group_copy|halo|tile"
)

# The text of an SVG (or of several): the labels, entities decoded.
svg_text() {
    grep -o '<text[^>]*>[^<]*</text>' "$@" | sed -e 's/<[^>]*>//g' -e 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&#160;/ /g; s/&#45;/-/g; s/&amp;/\&/g'
}

# Pixels darker than light grey, as a fraction of a PGM file (binary P5, 8 bits).
ink_fraction() {
    { head -n 3 > /dev/null; od -An -v -tu1; } < "$1" |
        awk '{ for (i = 1; i <= NF; i++) { t++; if ($i < 224) n++ } } END { printf "%.4f\n", t ? n / t : 0 }'
}

mkdir -p "$out/diagram-pages"
printf '%-22s %7s %6s %9s %7s %8s  %s\n' deck slides pages includes charts diagrams result
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
    diagrams=$(grep -c '^diagram' "$work/list")

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
        [ "$svgs" -ge $((charts + diagrams)) ] ||
            problem "$deck: $charts chart(s) and $diagrams diagram(s) in the deck, $svgs SVG image(s) in $html"
        # The SVGs pandoc embedded, decoded, for the diagrams' labels below.
        grep -o 'data:image/svg+xml;base64,[A-Za-z0-9+/=]*' "$html" | sed 's/.*base64,//' |
            while read -r b64; do printf '%s' "$b64" | base64 -d 2>/dev/null; echo; done > "$work/embedded.svg"
        svg_text "$work/embedded.svg" > "$work/embedded.txt"
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

    # Each diagram: its SVG, its copy in the HTML, its PDF page.
    while IFS=$'\t' read -r kind line svg diagram; do
        [ "$kind" = diagram ] || continue
        labels=${diagram_labels[$diagram]:-}
        [ -n "$labels" ] || { problem "$deck:$line: diagram '$diagram' has no labels to look for in check_slides.sh"; continue; }
        if [ ! -s "$svg" ] || ! grep -q '<svg' "$svg"; then
            problem "$deck:$line: diagram '$diagram' drew no SVG"
            continue
        fi
        svg_text "$svg" > "$work/svg.txt"
        # The slide the directive is on: the PDF page after the title page and the slides before it.
        slide=$(head -n "$line" "$deck" | outside_fences /dev/stdin | grep -c '^## ')
        page=$((slide + 1))
        pdftotext -f "$page" -l "$page" "$pdf" "$work/page.txt" 2>/dev/null || : > "$work/page.txt"
        IFS='|' read -r -a wanted <<< "$labels"
        for label in "${wanted[@]}"; do
            grep -q -F -- "$label" "$work/svg.txt" || problem "$deck:$line: diagram '$diagram': no label '$label' in its SVG"
            [ -s "$html" ] && { grep -q -F -- "$label" "$work/embedded.txt" ||
                problem "$deck:$line: diagram '$diagram': no SVG in $html has the label '$label'"; }
        done
        # pdftotext keeps the words of a label, not always their spacing: look for the first word.
        first_word=${wanted[0]%% *}
        grep -q -F -- "$first_word" "$work/page.txt" ||
            problem "$deck:$line: diagram '$diagram': page $page of $pdf has no '$first_word'"
        if [ -s "$pdf" ]; then
            png="$out/diagram-pages/$name-p$page-$diagram"
            pdftoppm -png -r 50 -f "$page" -l "$page" -singlefile "$pdf" "$png"
            # Under the heading (the top 40 of 172 pixels at 30 dpi): at least 1% ink.
            pdftoppm -gray -r 30 -f "$page" -l "$page" -x 0 -y 40 -W 307 -H 133 -singlefile "$pdf" "$work/page"
            ink=$(ink_fraction "$work/page.pgm")
            awk -v f="$ink" 'BEGIN { exit !(f >= 0.01) }' ||
                problem "$deck:$line: diagram '$diagram': page $page of $pdf is blank under the heading (ink $ink)"
            images=$(pdfimages -list -f "$page" -l "$page" "$pdf" 2>/dev/null | tail -n +3 | wc -l)
            [ "$images" -eq 0 ] ||
                problem "$deck:$line: diagram '$diagram': page $page of $pdf holds $images raster image(s); the diagram should be vectors"
        fi
    done < "$work/list"

    result=ok
    [ $problems -eq $before ] || result=FAILED
    printf '%-22s %7s %6s %9s %7s %8s  %s\n' "$name" "$slides" "$pages" "$includes" "$charts" "$diagrams" "$result"
done

# Every exercise of the course is named on some Exercises slide.
for dir in exercises/[0-9][0-9]_*/; do
    ref=${dir}README.md
    # Not `| grep -q`: under pipefail, grep leaving at its first match can end printf with SIGPIPE
    # and fail the pipeline (1 in 3,000 here, more on a loaded machine).
    grep -x -F "$ref" >/dev/null <<< "$(printf '%s\n' "${named_exercises[@]}")" || problem "no deck's Exercises slide names $ref"
done

# The diagrams the exercise READMEs show are committed SVGs: their sources must not have moved on.
slides/tools/diagram.sh --readmes --check || problem "README diagrams are stale (above): run slides/tools/diagram.sh --readmes"

awk -v s="$start" -v e="$end" 'BEGIN { printf "render time: %.1f s\n", e - s }'
if [ $problems -gt 0 ]; then
    echo "check_slides: $problems problem(s)" >&2
    exit 1
fi
echo "check_slides: all decks OK"
