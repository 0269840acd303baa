#!/usr/bin/env python3
"""C2 compilations after the Nth mark (push or call): a method's first C2 compilation (ordinary
warm-up: its invocation count crossed the tier-4 threshold) or a recompilation (its code was
thrown away before: a deopt loop). Usage: recompiles.py COMP.xml T0FILE MARKS N [SHOW]
(T0FILE holds the appliance's start in epoch ms; see curve.py)."""
import sys
if len(sys.argv) < 5:
    sys.exit(__doc__)

import re,html,collections,bisect,sys
attr=lambda s,k:(re.search(k+r"='([^']*)'",s) or [None,None])[1]
comp,t0f,marksf,after=sys.argv[1],sys.argv[2],sys.argv[3],int(sys.argv[4])
t0=int(open(t0f).read()); marks=sorted((int(l)-t0)/1000 for l in open(marksf))
last=marks[-1]
lines=open(comp,errors='replace').read().split('\n')
q={}; seen=collections.Counter(); first=0; again=[]; firsts=[]; pkg=collections.Counter()
for l in lines:
    if l.startswith('<compilation_log'): break
    if not l.endswith('>') or not re.search(r"stamp='[0-9.]+'",l): continue
    if l.startswith('<task_queued'): q[attr(l,'compile_id')]=(attr(l,'count'),attr(l,'backedge_count'),attr(l,'compile_kind'),attr(l,'decompiles'))
    if l.startswith('<nmethod') and attr(l,'compiler')=='c2':
        m=html.unescape(attr(l,'method')); st=float(attr(l,'stamp')); n=bisect.bisect_left(marks,st)
        if n>=after and st<=last:
            info=q.get(attr(l,'compile_id'))
            (again if seen[m] else firsts).append((n,m[:100],info))
            pkg['.'.join(m.split()[0].split('.')[:3])]+=1
        seen[m]+=1
deopted = [x for x in again if x[2] and x[2][3]]
print('C2 compilations between mark', after, 'and the last mark:', len(firsts) + len(again),
      '; first C2 of the method:', len(firsts), '; C2 again:', len(again), '(after a deopt:',
      len(deopted), '; the rest after an OSR compilation or a zombie)')
cs=sorted(int(x[2][0]) for x in firsts if x[2] and x[2][0])
if cs: print('invocation counts at queueing (first C2): p10',cs[len(cs)//10],'median',cs[len(cs)//2],'p90',cs[9*len(cs)//10])
print('by package:',pkg.most_common(12))
for x in again[:40]: print(' again',x)
for x in firsts[:int(sys.argv[5]) if len(sys.argv)>5 else 20]: print(' first',x)
