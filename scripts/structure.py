#!/usr/bin/env python3
"""The codebase's structure, drawn and checked: which folder includes which, and no two-way ties.

  scripts/structure.py [--svg FILE] [--dot FILE] [--current FILE]   (exit 1 on a violation)

--current FILE: also fails when FILE (the committed drawing's Graphviz source, docs/structure.dot)
is not what the code draws now; redraw with --dot docs/structure.dot --svg docs/structure.svg.

Rooms, top to bottom: cli -> server -> client -> contest -> grading -> harness -> common (the class
server and the student's network client sit beside each other: neither includes the other). An #include may point down or
inside its own room, never up. A unit is a header and its source (x.hpp with x.cpp); two units that
include each other are a two-way tie, refused at any level. Exercises, tests, bench and make_defs are
clients of the rooms and are not drawn.
"""
import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOMS = ["cli", "server", "client", "contest", "grading", "harness", "common"]  # top to bottom
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources():
    for room in ROOMS:
        for base, dirs, files in os.walk(os.path.join(ROOT, room)):
            dirs[:] = [d for d in dirs if d not in ("tests", "examples", "reference")]
            for f in files:
                if f.endswith((".cpp", ".hpp")):
                    yield os.path.relpath(os.path.join(base, f), ROOT)


def index_headers(files):
    """An include's text -> the file it names (by the include directories the rooms use)."""
    by_suffix = {}
    for f in files:
        if not f.endswith(".hpp"):
            continue
        parts = f.split("/")
        for k in range(1, len(parts) + 1):
            by_suffix.setdefault("/".join(parts[-k:]), set()).add(f)
    return by_suffix


def unit(f):
    return os.path.splitext(f.replace("/include/workbook/", "/").replace("/src/", "/"))[0]


def room(f):
    return f.split("/")[0]


def resolve(inc, src, by_suffix):
    local = os.path.normpath(os.path.join(os.path.dirname(src), inc))
    if os.path.exists(os.path.join(ROOT, local)):
        return local
    hits = by_suffix.get(inc, set())
    return sorted(hits)[0] if len(hits) == 1 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--svg", help="draw the rooms and their arrows to this SVG (needs Graphviz's dot)")
    ap.add_argument("--dot", help="write the Graphviz source to this file")
    ap.add_argument("--current", help="fail when this Graphviz source differs from the drawing of the code now")
    args = ap.parse_args()
    files = sorted(sources())
    by_suffix = index_headers(files)
    edges = set()  # (from unit, to unit)
    room_arrows = defaultdict(int)
    problems = []
    for f in files:
        text = open(os.path.join(ROOT, f), encoding="utf-8", errors="replace").read()
        for inc in INCLUDE.findall(text):
            target = resolve(inc, f, by_suffix)
            if not target or unit(target) == unit(f):
                continue
            edges.add((unit(f), unit(target)))
            a, b = room(f), room(target)
            if a != b:
                room_arrows[(a, b)] += 1
                if ROOMS.index(b) < ROOMS.index(a):
                    problems.append(f"upward include: {f} includes {target} ({a} may not include {b})")
    for a, b in sorted(edges):
        if a < b and (b, a) in edges:
            problems.append(f"two-way tie: {a} and {b} include each other")
    lines = ["digraph rooms {", '  rankdir=TB; node [shape=box, fontname="sans-serif"];']
    counts = defaultdict(int)
    for f in files:
        counts[room(f)] += sum(1 for _ in open(os.path.join(ROOT, f), encoding="utf-8", errors="replace"))
    # Rooms and arrows only (no counts): the drawing changes when the structure does, not with
    # every line of code.
    for r in ROOMS:
        lines.append(f'  {r} [label="{r}/"];')
    for (a, b), n in sorted(room_arrows.items()):
        up = ROOMS.index(b) < ROOMS.index(a)
        lines.append(f'  {a} -> {b}{" [color=red]" if up else ""};')
    lines.append("}")
    dot = "\n".join(lines) + "\n"
    if args.dot:
        open(args.dot, "w").write(dot)
    if args.svg:
        r = subprocess.run(["dot", "-Tsvg", "-o", args.svg], input=dot, text=True, capture_output=True)
        if r.returncode != 0:
            print(f"dot could not draw {args.svg}: {r.stderr.strip()} (apt-get install graphviz)", file=sys.stderr)
            return 2
    print(f"{len(files)} files in {len(ROOMS)} rooms: " + ", ".join(f"{r}/ {counts[r]} lines" for r in ROOMS))
    print("arrows between rooms (includes):")
    for (a, b), n in sorted(room_arrows.items(), key=lambda kv: (ROOMS.index(kv[0][0]), ROOMS.index(kv[0][1]))):
        print(f"  {a:8} -> {b:8} {n:4}")
    if args.current:
        old = open(args.current).read() if os.path.exists(args.current) else ""
        if old != dot:
            problems.append(f"{args.current} is not the drawing of the code now: redraw it with "
                            f"scripts/structure.py --dot docs/structure.dot --svg docs/structure.svg")
    for p in problems:
        print("PROBLEM: " + p)
    print("no upward include and no two-way tie" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
