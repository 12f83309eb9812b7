#!/usr/bin/env python3
"""usage: threads.py LAUNCHER CAPTURE OUT [JAVA_OPTS...]: taskset -c 0,1 LAUNCHER replay CAPTURE -o OUT at -Xmx256m
(+ JAVA_OPTS); wall, the child's rusage CPU (user+sys), peak RSS, and CPU per thread name (utime+stime from
/proc/PID/task/*/stat, polled every 50 ms; the JVM is the launcher's last exec, same pid). Adapted from the one in
benchmarks/results/2026-12-02-vm/walk-fourth.txt (launcher and capture as arguments)."""
import os, sys, subprocess, time, resource
launcher, capture, out = sys.argv[1], sys.argv[2], sys.argv[3]
env = dict(os.environ, FLAGTRACE_JAVA_OPTS=' '.join(['-Xmx256m'] + sys.argv[4:]))
t0 = time.time()
p = subprocess.Popen(['taskset', '-c', '0,1', launcher, 'replay', capture, '-o', out], env=env,
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
cpu = {}
hz = os.sysconf('SC_CLK_TCK')
while p.poll() is None:
    try:
        for t in os.listdir('/proc/%d/task' % p.pid):
            try:
                s = open('/proc/%d/task/%s/stat' % (p.pid, t)).read()
                name = s[s.index('(') + 1:s.rindex(')')]
                f = s[s.rindex(')') + 2:].split()
                cpu[(name, t)] = (int(f[11]) + int(f[12])) / hz
            except (FileNotFoundError, ProcessLookupError, ValueError):
                pass
    except FileNotFoundError:
        pass
    time.sleep(0.05)
err = p.stderr.read().decode(errors='replace')
wall = time.time() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
by = {}
for (name, t), v in cpu.items():
    by[name] = by.get(name, 0) + v
print('rc=%d wall=%.2f maxrss=%dMiB cpu=%.2f (user %.2f sys %.2f) load=%s | %s' % (p.returncode, wall, ru.ru_maxrss // 1024,
      ru.ru_utime + ru.ru_stime, ru.ru_utime, ru.ru_stime, open('/proc/loadavg').read().split()[0],
      ' '.join('%s=%.2f' % (k.replace(' ', '_'), v) for k, v in sorted(by.items(), key=lambda x: -x[1]) if v >= 0.05)), flush=True)
if p.returncode != 0:
    print(err[-2000:])
