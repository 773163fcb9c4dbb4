#!/usr/bin/env python3
"""bench/ab.py: two gdc builds (two build trees, e.g. git worktrees of two commits) side by
side with the same gdbench runs, interleaved (A B, then B A, ...) so that a noisy moment hits
both; prints Markdown: per test and rank count the median latency of each and B/A.

usage: bench/ab.py A_BUILDDIR B_BUILDDIR "TESTS" "RANKS" SIZES REPS
   e.g. bench/ab.py ../gdc-before . "allreduce bcast" "2 4" 4:16M 3
One build with two settings: the same directory twice, and AB_A_ENV / AB_B_ENV holding each
side's "NAME=VALUE ..." (e.g. AB_A_ENV=GDC_CALIBRATION=off AB_B_ENV=GDC_CALIBRATION=auto).
"""
import os, subprocess, sys, statistics, re, datetime
a_dir, b_dir, tests, ranks, sizes, reps = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split(), sys.argv[5], int(sys.argv[6])
side_env = {side: dict(kv.split("=", 1) for kv in os.environ.get(f"AB_{side}_ENV", "").split())
            for side in ("A", "B")}
def run(d, t, n, side):
    out = subprocess.run([f"{d}/launcher/gdrun", "-n", n, f"{d}/bench/gdbench", t, "-m", sizes],
                         capture_output=True, text=True, timeout=600, env={**os.environ, **side_env[side]}).stdout
    return {int(l.split()[0]): float(l.split()[1]) for l in out.splitlines() if re.match(r"^\d+\s", l)}
print(f"A/B run {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC: A = {a_dir} {os.environ.get('AB_A_ENV', '')}, "
      f"B = {b_dir} {os.environ.get('AB_B_ENV', '')}, {reps} interleaved repetitions, medians")
for n in ranks:
    for t in tests:
        res = {"A": {}, "B": {}}
        for r in range(reps):
            for side, d in (("A", a_dir), ("B", b_dir)) if r % 2 == 0 else (("B", b_dir), ("A", a_dir)):
                for s, v in run(d, t, n, side).items():
                    res[side].setdefault(s, []).append(v)
        print(f"\n#### {t}, {n} ranks\n\n    {{A,B}}/launcher/gdrun -n {n} {{A,B}}/bench/gdbench {t} -m {sizes}\n")
        print("| Size | A (us) | B (us) | B/A |\n| ---: | ---: | ---: | ---: |")
        ratios = []
        for s in sorted(res["A"]):
            ma, mb = statistics.median(res["A"][s]), statistics.median(res["B"][s])
            ratios.append(mb / ma)
            print(f"| {s} | {ma:.2f} | {mb:.2f} | {mb/ma:.2f} |")
        print(f"\nB/A: median {statistics.median(ratios):.2f}, {min(ratios):.2f} to {max(ratios):.2f}")
