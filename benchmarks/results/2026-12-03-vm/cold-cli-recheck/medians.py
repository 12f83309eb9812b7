#!/usr/bin/env python3
"""usage: medians.py runs-*.txt: median (min-max) of wall, CPU (user+sys), sys and peak RSS per side and command."""
import sys, re, statistics, collections
for path in sys.argv[1:]:
    rows = collections.OrderedDict()
    for line in open(path):
        m = re.match(r'(\S+) (\S+) round=\d+ wall_s=(\S+) user_s=(\S+) sys_s=(\S+) cpu_s=(\S+) rss_kib=(\d+) rc=0', line)
        if m:
            rows.setdefault((m[1], m[2]), []).append((float(m[3]), float(m[6]), float(m[5]), int(m[7]) / 1024))
    print('== %s' % path)
    for (side, what), v in rows.items():
        col = lambda i: [x[i] for x in v]
        f = lambda xs: '%.2f (%.2f-%.2f)' % (statistics.median(xs), min(xs), max(xs))
        print('%-7s %-22s n=%d  wall %s  cpu %s  sys %s  rss %.0f MiB' % (side, what, len(v), f(col(0)), f(col(1)), f(col(2)),
              statistics.median(col(3))))
