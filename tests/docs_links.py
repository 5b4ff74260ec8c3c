"""Every relative link and image of the README and the guides (docs/*.md) names a file that exists,
and every guide is reachable from the README: the front door leads everywhere.

  docs_links.py SOURCE_DIR
"""
import os
import re
import sys


def main():
    src = sys.argv[1]
    pages = [os.path.normpath(os.path.join(src, "README.md"))] + sorted(
        os.path.normpath(os.path.join(src, "docs", f)) for f in os.listdir(os.path.join(src, "docs")) if f.endswith(".md"))
    failures = []
    linked = set()
    for page in pages:
        text = open(page, encoding="utf-8").read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(page), target.split("#")[0]))
            linked.add(path)
            if not os.path.exists(path):
                failures.append(f"{os.path.relpath(page, src)}: the link {target} names no file")
    for page in pages[1:]:
        if page not in linked:
            failures.append(f"{os.path.relpath(page, src)} is linked from no page")
    for f in failures:
        print("FAIL " + f)
    print(f"{len(pages)} pages, {len(linked)} link targets checked, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
