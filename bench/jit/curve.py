#!/usr/bin/env python3
"""The JIT's curve over a long run (docs/benchmarks.md, "The JIT's steady state").

Reads the appliance's -XX:+LogCompilation file (its main stream, readable while the JVM runs) and
its -Xlog:class+load log, and prints per bucket: compilations by tier, C2 code made not entrant
(deoptimisations that throw code away), uncommon traps by reason, classes loaded by kind (lambda,
reflection accessor, proxy, other generated); then the trap sites, the C2 code made not entrant and
the compilations of the run's second half, and the methods compiled most often.

Usage: curve.py COMP.xml CLASSLOAD.log BUCKET [T0_EPOCH_MS MARKS]
  BUCKET  seconds since the JVM started (e.g. 60), or nN: N marks per bucket (n100: per 100 pushes)
  T0_EPOCH_MS  the appliance's start, epoch ms (from /proc/PID/stat's starttime)
  MARKS   one epoch-ms time per line, one per push or call: the audit's records, e.g.
          sqlite3 -readonly D/pushgate.db "select at from audit where record_type='push' order by at"
"""
import sys
if len(sys.argv) < 4:
    sys.exit(__doc__)

import re, sys, collections, html
comp, cl, bucket = sys.argv[1], sys.argv[2], sys.argv[3]
per_n = int(bucket[1:]) if bucket.startswith('n') else None   # n100: bucket by 100 marks (pushes, calls)
bucket = 1.0 if per_n else float(bucket)
marks = None
if len(sys.argv) > 5:
    t0 = int(sys.argv[4]); marks = sorted((int(l) - t0) / 1000 for l in open(sys.argv[5]) if l.strip())
attr = lambda s, k: (re.search(k + r"='([^']*)'", s) or [None, None])[1]
import bisect
def B(st):
    if per_n: return bisect.bisect_left(marks, float(st)) // per_n
    return int(float(st) // bucket)
rows = collections.defaultdict(collections.Counter)
traps_late = collections.Counter(); traps_all = collections.Counter(); recomp = collections.Counter()
nment_late = collections.Counter(); comp_late = collections.Counter()
queued = {}
lines = open(comp, errors='replace').read().split('\n')
end = max((float(attr(l, 'stamp')) for l in lines[-5000:] if re.search(r"stamp='[0-9.]+'", l)), default=0)
late = end / 2
i = 0
for i, l in enumerate(lines):
    if l.startswith('<compilation_log') : break
    if not re.search(r"stamp='[0-9.]+'", l) or not l.endswith('>'): continue
    if l.startswith('<task_queued'):
        queued[attr(l, 'compile_id')] = (html.unescape(attr(l, 'method')), attr(l, 'level'))
    elif l.startswith('<nmethod') and attr(l, 'compiler') in ('c1', 'c2'):
        st = float(attr(l, 'stamp')); lv = attr(l, 'level'); m = html.unescape(attr(l, 'method'))
        rows[B(st)]['L' + lv] += 1
        recomp[(m, lv)] += 1
        if st > late: comp_late[(m, lv)] += 1
    elif l.startswith('<make_not_entrant') and attr(l, 'compiler') == 'c2' and 'zombie=' not in l:
        st = float(attr(l, 'stamp')); rows[B(st)]['mne_c2'] += 1
        if st > late: nment_late[queued.get(attr(l, 'compile_id'), ('?',))[0]] += 1
    elif l.startswith('<uncommon_trap thread'):
        st = float(attr(l, 'stamp')); r = attr(l, 'reason')
        meth = html.unescape(attr(lines[i + 1], 'method') or '?'); bci = attr(lines[i + 1], 'bci')
        rows[B(st)]['trap:' + r] += 1
        top = html.unescape(queued.get(attr(l, 'compile_id'), ('?',))[0])
        traps_all[(r, meth, bci, top)] += 1
        if st > late: traps_late[(r, meth, bci, top)] += 1
    elif l.startswith('<deoptimized'):
        pass
for l in open(cl, errors='replace'):
    m = re.match(r'\[\s*([0-9.]+)s\](?:\[info\]\[class,load\])? (\S+) source: (.*)', l)
    if not m: continue
    st, name, src = float(m[1]), m[2], m[3]
    kind = 'lambda' if '$$Lambda' in name else 'reflect' if 'reflect.Generated' in name or 'GeneratedMethodAccessor' in name or 'GeneratedConstructorAccessor' in name else 'proxy' if '$Proxy' in name else 'hidden/other-gen' if ('LambdaForm' in name or '0x' in name) else 'class'
    rows[B(st)]['cl:' + kind] += 1
keys = ['L1', 'L2', 'L3', 'L4', 'mne_c2']
trapkeys = sorted({k for r in rows.values() for k in r if k.startswith('trap:')})
clkeys = sorted({k for r in rows.values() for k in r if k.startswith('cl:')})
import bisect
hdr = ['t0(s)', 'pushes'] + keys + ['traps'] + clkeys
print('\t'.join(hdr) + '\t' + ' '.join(trapkeys))
for b in sorted(rows):
    r = rows[b]
    if per_n:
        lo = marks[b * per_n] if b * per_n < len(marks) else end
        hi = marks[min((b + 1) * per_n, len(marks)) - 1] if b * per_n < len(marks) else end
        n = f'{b * per_n}-{(b + 1) * per_n}'
    else:
        lo, hi = b * bucket, (b + 1) * bucket
        n = (bisect.bisect_left(marks, hi) - bisect.bisect_left(marks, lo)) if marks else ''
    print('\t'.join([f'{lo:.0f}', str(n)] + [str(r[k]) for k in keys] + [str(sum(r[k] for k in trapkeys))] + [str(r[k]) for k in clkeys]) + '\t' + ' '.join(f'{k[5:]}={r[k]}' for k in trapkeys if r[k]))
print(f'\nend {end:.0f}s; second half (after {late:.0f}s): uncommon traps by site (reason, trapping method, bci, compiled method):')
for k, v in traps_late.most_common(40): print(v, *k, sep='\t')
print('\nC2 made not entrant, second half, by method:')
for k, v in nment_late.most_common(20): print(v, k, sep='\t')
print('\ncompiled in second half, by method+level (top 40):')
for k, v in comp_late.most_common(40): print(v, *k, sep='\t')
print('\nmost recompiled over the whole run (method, level: times):')
for k, v in recomp.most_common(25): print(v, *k, sep='\t')
