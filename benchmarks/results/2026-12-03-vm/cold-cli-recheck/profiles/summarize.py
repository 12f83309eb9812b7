#!/usr/bin/env python3
"""usage: summarize.py FILE.collapsed...: samples per thread, and the top self frames of the three stage threads
(main = the producer: read, decode, publish; Thread-0 = the light stages; Thread-1 = the walk/writer)."""
import sys, collections
for path in sys.argv[1:]:
    threads = collections.Counter(); self_ = collections.defaultdict(collections.Counter)
    for line in open(path):
        stack, n = line.rsplit(' ', 1); n = int(n); frames = stack.split(';')
        t = frames[0].split(' tid=')[0].strip('[]')
        threads[t] += n; self_[t][frames[-1]] += n
    total = sum(threads.values())
    print('== %s: %d samples' % (path, total))
    print('   ' + ', '.join('%s %d (%.1f%%)' % (t, n, 100.0 * n / total) for t, n in threads.most_common(8)))
    for t in ('main', 'Thread-0', 'Thread-1'):
        if t in self_:
            print('   %s self: %s' % (t, ', '.join('%s %d' % (f.split('/')[-1], n) for f, n in self_[t].most_common(8))))
