#!/usr/bin/env python3
"""svg_check.py FILE.svg: parses the chart of `choreo compare --plot` as XML
and prints, per series, its name, its number of points and whether every
point lies inside the image; exits 1 if the file is not well-formed SVG."""
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
try:
    root = ET.parse(sys.argv[1]).getroot()
except ET.ParseError as e:
    print("svg_check: error: %s" % e, file=sys.stderr)
    sys.exit(1)
if root.tag != NS + "svg":
    print("svg_check: error: root element is %s" % root.tag, file=sys.stderr)
    sys.exit(1)
width, height = float(root.get("width")), float(root.get("height"))
for g in root.iter(NS + "g"):
    if g.get("class") != "series":
        continue
    line = g.find(NS + "polyline")
    points = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
    inside = all(0 <= x <= width and 0 <= y <= height for x, y in points)
    print("series %s: %d points, %s" % (g.get("data-name"), len(points),
                                        "inside" if inside else "OUTSIDE"))
