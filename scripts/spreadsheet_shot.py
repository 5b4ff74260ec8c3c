#!/usr/bin/env python3
"""A picture of a CSV file as a spreadsheet program shows it (LibreOffice Calc, headless): the
grid, the column letters and row numbers, one landscape page, no header or footer. For the
instructors' guide, which shows each gradebook export as the LMS's user will see it opened.

    scripts/spreadsheet_shot.py FILE.csv OUT.png [--dpi 110]

Needs `soffice` (Debian: libreoffice-calc-nogui) and `pdftoppm` (poppler-utils). Every cell is
kept as the CSV spells it: text stays text, a number is right-aligned as Calc shows numbers.
"""
import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
from xml.sax.saxutils import escape

NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def flat_ods(rows):
    """The rows as a flat OpenDocument spreadsheet with a page style that prints the grid."""
    width = max(len(r) for r in rows)
    cols = [max(len(r[c]) if c < len(r) else 0 for r in rows) for c in range(width)]
    col_styles = "".join(
        f'<style:style style:name="co{c}" style:family="table-column">'
        f'<style:table-column-properties style:column-width="{max(1.6, 0.22 * w + 0.4):.2f}cm"/></style:style>'
        for c, w in enumerate(cols))
    col_defs = "".join(f'<table:table-column table:style-name="co{c}"/>' for c in range(width))
    body = []
    for r in rows:
        cells = []
        for c in range(width):
            v = r[c] if c < len(r) else ""
            if v == "":
                cells.append("<table:table-cell/>")
            elif NUMBER.match(v):
                cells.append(f'<table:table-cell office:value-type="float" office:value="{v}"><text:p>{v}</text:p></table:table-cell>')
            else:
                cells.append(f'<table:table-cell office:value-type="string"><text:p>{escape(v)}</text:p></table:table-cell>')
        body.append("<table:table-row>" + "".join(cells) + "</table:table-row>")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:automatic-styles>
 <style:page-layout style:name="page">
  <style:page-layout-properties fo:page-width="29.7cm" fo:page-height="21cm" style:print-orientation="landscape"
   fo:margin-top="0.5cm" fo:margin-bottom="0.5cm" fo:margin-left="0.5cm" fo:margin-right="0.5cm"
   style:print="grid headers zero-values" style:print-page-order="ttb" style:scale-to-pages="1"/>
 </style:page-layout>
 <style:style style:name="sheet" style:family="table" style:master-page-name="shot"/>
 {col_styles}
</office:automatic-styles>
<office:master-styles>
 <style:master-page style:name="shot" style:page-layout-name="page">
  <style:header style:display="false"/><style:footer style:display="false"/>
 </style:master-page>
</office:master-styles>
<office:body><office:spreadsheet>
 <table:table table:name="export" table:style-name="sheet">{col_defs}{"".join(body)}</table:table>
</office:spreadsheet></office:body>
</office:document>
"""


def content_box(pdf):
    """The drawn content's box in points, from the words pdftotext finds (the grid hugs them)."""
    out = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True, check=True).stdout
    boxes = [tuple(map(float, m)) for m in re.findall(
        r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)"', out)]
    if not boxes:
        raise SystemExit(f"{pdf}: nothing drawn (an empty CSV?)")
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv")
    p.add_argument("png")
    p.add_argument("--dpi", type=int, default=110)
    a = p.parse_args()
    for tool, package in (("soffice", "libreoffice-calc-nogui"), ("pdftoppm", "poppler-utils")):
        if not shutil.which(tool):
            sys.exit(f"{tool} not found: apt-get install --no-install-recommends {package}")
    with open(a.csv, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f))
    if not rows:
        sys.exit(f"{a.csv}: no rows")
    with tempfile.TemporaryDirectory() as work:
        sheet = os.path.join(work, "sheet.fods")
        with open(sheet, "w", encoding="utf-8") as f:
            f.write(flat_ods(rows))
        # A profile of its own: an instance the user has open is not disturbed, nor disturbs this.
        # The filter named: by content, LibreOffice takes a file with "Workbook" near its start for
        # Excel 2003 XML (a Moodle export's header) and prints an empty page.
        subprocess.run(["soffice", f"-env:UserInstallation=file://{work}/profile", "--headless",
                        "--infilter=OpenDocument Spreadsheet Flat XML", "--convert-to", "pdf", "--outdir", work, sheet],
                       check=True, capture_output=True, timeout=120)
        pdf = os.path.join(work, "sheet.pdf")
        x0, y0, x1, y1 = content_box(pdf)
        s = a.dpi / 72.0
        # Past the words by a little more than a row and a column: the grid's and headings' lines.
        x0, y0, x1, y1 = max(0.0, x0 - 40), max(0.0, y0 - 18), x1 + 10, y1 + 8
        stem = os.path.join(work, "shot")
        subprocess.run(["pdftoppm", "-png", "-r", str(a.dpi), "-singlefile", "-x", str(int(x0 * s)), "-y", str(int(y0 * s)),
                        "-W", str(int((x1 - x0) * s)), "-H", str(int((y1 - y0) * s)), pdf, stem], check=True)
        shutil.copyfile(stem + ".png", a.png)
    print(f"{a.png}: {a.csv} as LibreOffice Calc prints it")


if __name__ == "__main__":
    main()
