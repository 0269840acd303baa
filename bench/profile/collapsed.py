#!/usr/bin/env python3
"""Reads an async-profiler profile in collapsed form, with thread names (docs/benchmarks.md,
"Profiling with async-profiler"): unlike a flight recording it counts the native and kernel frames
under Java's (SQLite, system calls, the JVM's own), so a part's share is its share of the CPU.

Usage: collapsed.py FILE threads
         the samples by thread, numbers in the names made N
       collapsed.py FILE share THREAD_REGEX WITHIN PART...
         of the samples of those threads whose stack holds WITHIN (- for all), the share each PART
         is on the stack of (inclusive: parts may overlap)
       collapsed.py FILE tree THREAD_REGEX ROOT [MIN_PERCENT [DEPTH [KEEP_REGEX]]]
         the call tree below the first frame holding ROOT, in percent of the samples under ROOT;
         KEEP_REGEX keeps only the frames it matches (the others are skipped, their callees kept)
A part, a root, a frame: any substring of a frame, e.g. "PushHook.judge" or "sqlite".
"""
import collections
import re
import sys


def samples(path):
    """Each line's thread, frames (outermost first) and count."""
    for line in open(path):
        stack, _, n = line.rstrip().rpartition(' ')
        frames = stack.split(';')
        thread = frames[0].strip('[]').split(' tid=')[0]
        yield thread, frames[1:], int(n)


def threads(path):
    by = collections.Counter()
    for thread, _, n in samples(path):
        by[re.sub(r'\d+', 'N', thread)] += n
    total = sum(by.values())
    print('samples', total)
    for name, n in by.most_common(30):
        print(f'{n:8d} {100 * n / total:5.1f}% {name}')


def share(path, thread_re, within, parts):
    wanted = re.compile(thread_re)
    counts = collections.Counter()
    total = 0
    for thread, frames, n in samples(path):
        stack = ';'.join(frames)
        if not wanted.search(thread) or (within != '-' and within not in stack):
            continue
        total += n
        for p in parts:
            if p in stack:
                counts[p] += n
    print('samples', total)
    for p in parts:
        print(f'{counts[p]:8d} {100 * counts[p] / max(total, 1):5.1f}% {p}')


def tree(path, thread_re, root, min_percent=1.0, depth=12, keep=None):
    wanted = re.compile(thread_re)
    kept = re.compile(keep) if keep else None
    top = {'n': 0, 'c': {}}
    for thread, frames, n in samples(path):
        if not wanted.search(thread):
            continue
        at = next((i for i, f in enumerate(frames) if root in f), None)
        if at is None:
            continue
        node = top
        node['n'] += n
        for f in frames[at + 1:]:
            if kept and not kept.search(f):
                continue
            node = node['c'].setdefault(f, {'n': 0, 'c': {}})
            node['n'] += n
    print('samples', top['n'])

    def show(node, name, level):
        percent = 100 * node['n'] / max(top['n'], 1)
        if level > depth or percent < min_percent:
            return
        print(f"{'  ' * level}{percent:5.1f}% {name[-120:]}")
        for child, sub in sorted(node['c'].items(), key=lambda kv: -kv[1]['n']):
            show(sub, child, level + 1)

    show(top, root, 0)


if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    f, mode, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if mode == 'threads':
        threads(f)
    elif mode == 'share' and len(rest) >= 3:
        share(f, rest[0], rest[1], rest[2:])
    elif mode == 'tree' and len(rest) >= 2:
        tree(f, rest[0], rest[1], float(rest[2]) if len(rest) > 2 else 1.0,
             int(rest[3]) if len(rest) > 3 else 12, rest[4] if len(rest) > 4 else None)
    else:
        sys.exit(__doc__)
