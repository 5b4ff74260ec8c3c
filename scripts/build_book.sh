#!/usr/bin/env bash
# The course book: the README (the front door), the guides in docs/, every exercise's README and the
# slides' sources, each a page of HTML, links between them kept (x.md becomes x.html), images
# copied beside them; index.html is the README. Browse build/book/index.html.
#   scripts/build_book.sh [SOURCE_DIR] [OUT_DIR]
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
out=${2:-$src/build/book}
command -v pandoc > /dev/null || { echo "build_book.sh: pandoc is missing (apt-get install pandoc)" >&2; exit 2; }
rm -rf "$out" && mkdir -p "$out"
filter=$out/.links.lua
cat > "$filter" <<'LUA'
-- A link to another page of the book (x.md, x.md#part) points at its HTML.
function Link(el)
  el.target = el.target:gsub("^([^:]-)%.md$", "%1.html"):gsub("^([^:]-)%.md#", "%1.html#")
  return el
end
LUA
style=$out/book.css
cat > "$style" <<'CSS'
body { max-width: 60rem; margin: 2rem auto; padding: 0 1rem; font-family: sans-serif; line-height: 1.45; }
pre, code { font-family: monospace; background: #f4f4f4; }
pre { padding: 0.6rem; overflow-x: auto; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 0.2rem 0.4rem; vertical-align: top; }
img { max-width: 100%; }
nav { border-bottom: 1px solid #ccc; margin-bottom: 1rem; padding-bottom: 0.5rem; }
CSS
cd "$src"
pages=(README.md docs/*.md exercises/*/README.md slides/*.md)
for page in "${pages[@]}"; do
    [ -f "$page" ] || continue
    html=$out/${page%.md}.html
    mkdir -p "$(dirname "$html")"
    dir=$(dirname "$page")
    up=$(realpath --relative-to="$(dirname "$html")" "$out")
    title=$(grep -m1 '^# ' "$page" | sed 's/^# //') || title=$page
    pandoc "$page" --from gfm --to html5 --standalone --lua-filter "$filter" --metadata pagetitle="${title:-$page}" \
        --css "$up/book.css" --include-before-body=<(echo "<nav><a href=\"$up/index.html\">OpenCL Workbook</a> · <a href=\"$up/docs/students.html\">students</a> · <a href=\"$up/docs/instructors.html\">instructors</a> · <a href=\"$up/docs/workshops.html\">workshops</a> · <a href=\"$up/docs/contributors.html\">contributors</a></nav>") \
        -o "$html"
    # The images the page shows, beside it as in the source tree.
    { grep -o '!\[[^]]*\]([^)]*)' "$page" || true; } | sed 's/.*](\([^)]*\))/\1/' | while read -r img; do
        case "$img" in http*) continue ;; esac
        if [ -f "$dir/$img" ]; then mkdir -p "$(dirname "$out/$dir/$img")" && cp "$dir/$img" "$out/$dir/$img"; fi
    done
done
cp "$out/README.html" "$out/index.html"
echo "the book: $out/index.html (${#pages[@]} pages)"
