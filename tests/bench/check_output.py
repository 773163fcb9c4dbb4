#!/usr/bin/env python3
"""Checks gdbench's outputs for tests/bench/run-gdbench.sh; exits 1 with a reason.

  check_output.py table FILE --test T --ranks N --sizes 4,8,16 [--full] [--validate]
      the OSU-style table: title line, column header laid out exactly as OSU's, one row
      per size with the right number of fixed-width fields, Pass in every row with -c
  check_output.py json FILE --test T --ranks N --sizes 4,8,16 [--validate]
      well-formed JSON with the run's parameters and one row per size
  check_output.py svg FILE
      well-formed SVG with the two panels, axes labels and a legend
"""
import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET

SIZE_W, FIELD_W, ITER_W, RATE_W = 10, 18, 12, 14


def fail(msg):
    print("check_output: " + msg)
    sys.exit(1)


def expected_header(test, full, validate):
    h = "%-*s" % (SIZE_W, "# Size")
    if test in ("bw", "bibw"):
        h += "%*s" % (FIELD_W, "Bandwidth (MB/s)")
    h += "%*s" % (FIELD_W, "Avg Latency(us)")
    if full:
        h += "%*s%*s%*s" % (FIELD_W, "Min Latency(us)", FIELD_W, "Max Latency(us)", ITER_W, "Iterations")
    h += "%*s%*s" % (RATE_W, "algbw(GB/s)", RATE_W, "busbw(GB/s)")
    if validate:
        h += "%*s" % (ITER_W, "Validation")
    return h


def check_table(args):
    lines = open(args.file).read().splitlines()
    if len(lines) < 3:
        fail("fewer than 3 lines of output:\n" + "\n".join(lines))
    title = re.compile(r"^# gdbench(-mpi|-mpich)? %s \(.+, %d ranks?(, .+)?\)$" % (re.escape(args.test), args.ranks))
    if not title.match(lines[0]):
        fail("title line %r does not match %s" % (lines[0], title.pattern))
    body = lines[1:]
    if not body[0].startswith("# Size"):  # a second comment line: the library's full version
        body = body[1:]
    want = expected_header(args.test, args.full, args.validate)
    if body[0] != want:
        fail("column header\n  %r\nexpected\n  %r" % (body[0], want))
    rows = body[1:]
    sizes = [int(s) for s in args.sizes.split(",")]
    if len(rows) != len(sizes):
        fail("%d rows, expected %d (sizes %s):\n%s" % (len(rows), len(sizes), sizes, "\n".join(rows)))
    width = len(want)
    for row, size in zip(rows, sizes):
        if len(row) != width:
            fail("row %r is %d characters wide, the header %d" % (row, len(row), width))
        fields = row.split()
        if int(fields[0]) != size:
            fail("row %r: size %s, expected %d" % (row, fields[0], size))
        numbers = fields[1:-1] if args.validate else fields[1:]
        for f in numbers:
            try:
                value = float(f)
            except ValueError:
                fail("row %r: %r is not a number" % (row, f))
            if value < 0:
                fail("row %r: negative value %r" % (row, f))
        if args.validate and fields[-1] != "Pass":
            fail("row %r: validation %r" % (row, fields[-1]))
        if float(fields[2 if args.test in ("bw", "bibw") else 1]) <= 0:
            fail("row %r: zero latency" % row)


def check_json(args):
    try:
        data = json.load(open(args.file))
    except ValueError as e:
        fail("not JSON: %s" % e)
    for key in ("benchmark", "program", "library", "library_version", "test", "ranks", "dtype", "op", "root",
                "in_place", "memory", "algorithm", "validate", "min_size", "max_size", "size_meaning",
                "busbw_factor", "status", "rows"):
        if key not in data:
            fail("key %r missing" % key)
    if data["test"] != args.test or data["ranks"] != args.ranks or data["status"] != "ok":
        fail("test/ranks/status are %r/%r/%r" % (data["test"], data["ranks"], data["status"]))
    sizes = [int(s) for s in args.sizes.split(",")]
    if [r["size"] for r in data["rows"]] != sizes:
        fail("row sizes %r, expected %r" % ([r["size"] for r in data["rows"]], sizes))
    for r in data["rows"]:
        for key in ("count", "bytes", "avg_us", "min_us", "max_us", "iterations", "algbw_gbps", "busbw_gbps"):
            if not isinstance(r.get(key), (int, float)):
                fail("row %r: %r is not a number" % (r, key))
        if not r["min_us"] <= r["avg_us"] <= r["max_us"]:
            fail("row %r: avg outside min..max" % r)
        if abs(r["busbw_gbps"] - r["algbw_gbps"] * data["busbw_factor"]) > 1e-6 * max(1.0, r["busbw_gbps"]):
            fail("row %r: busbw is not algbw x %g" % (r, data["busbw_factor"]))
        if r["validation"] != ("pass" if args.validate else None):
            fail("row %r: validation %r" % (r, r["validation"]))


def check_svg(args):
    try:
        root = ET.parse(args.file).getroot()
    except ET.ParseError as e:
        fail("not well-formed XML: %s" % e)
    ns = "{http://www.w3.org/2000/svg}"
    if root.tag != ns + "svg":
        fail("root element is %r, not svg" % root.tag)
    texts = [t.text or "" for t in root.iter(ns + "text")]
    for label in ("Latency", "Bandwidth", "Size (bytes)", "busbw", "algbw", "average across ranks"):
        if label not in texts:
            fail("no text %r in the SVG (texts: %r)" % (label, texts))
    if len(list(root.iter(ns + "polyline"))) < 3:
        fail("fewer than 3 data lines")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kind", choices=("table", "json", "svg"))
    p.add_argument("file")
    p.add_argument("--test")
    p.add_argument("--ranks", type=int)
    p.add_argument("--sizes")
    p.add_argument("--full", action="store_true")
    p.add_argument("--validate", action="store_true")
    args = p.parse_args()
    {"table": check_table, "json": check_json, "svg": check_svg}[args.kind](args)


if __name__ == "__main__":
    main()
