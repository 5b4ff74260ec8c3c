#!/usr/bin/env bash
# The course book (scripts/build_book.sh) builds; every link and image of every page resolves to a
# file of the book (or is a web address); headless Chromium renders the front page and a guide
# (screenshots kept in OUT). Exit 77 (skipped) where pandoc or Chromium is missing.
#   book_test.sh SOURCE_DIR OUT_DIR
set -uo pipefail
src=$1 out=$2
command -v pandoc > /dev/null || { echo "SKIP: pandoc is missing"; exit 77; }
browser=""
for candidate in chromium chromium-browser google-chrome; do
    command -v "$candidate" > /dev/null 2>&1 && { browser=$candidate; break; }
done
[ -n "$browser" ] || { echo "SKIP: headless Chromium not found (apt-get install chromium)"; exit 77; }
rm -rf "$out" && mkdir -p "$out"
"$src/scripts/build_book.sh" "$src" "$out/book" || { echo "FAIL: the book does not build"; exit 1; }
python3 - "$out/book" <<'PY' || exit 1
import os, re, sys
root = sys.argv[1]
bad, pages, links = [], 0, 0
for base, _, files in os.walk(root):
    for f in files:
        if not f.endswith(".html"):
            continue
        pages += 1
        page = os.path.join(base, f)
        for target in re.findall(r'(?:href|src)="([^"]+)"', open(page, encoding="utf-8").read()):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            links += 1
            if not os.path.exists(os.path.normpath(os.path.join(base, target.split("#")[0]))):
                bad.append(f"{os.path.relpath(page, root)}: {target}")
for b in bad:
    print("FAIL a link or image of the book names no file: " + b)
print(f"ok   {pages} pages, {links} local links and images, {len(bad)} broken")
sys.exit(1 if bad or pages < 30 else 0)
PY
for page in index docs/instructors; do
    shot=$out/$(basename "$page").png
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$out/profile" \
        --window-size=1280,900 --screenshot="$shot" "file://$out/book/$page.html" > /dev/null 2>> "$out/chromium.log"
    size=$(stat -c %s "$shot" 2>/dev/null || echo 0)
    [ "$size" -gt 20000 ] || { echo "FAIL: Chromium's screenshot of $page.html is $size bytes (a blank page?)"; exit 1; }
    echo "ok   $page.html renders ($shot, $size bytes)"
done
