"""Writes a directory as a newc cpio archive on stdout, the same bytes for the same files: entries
sorted by path, inode numbers counted from 1, owner root, every time SOURCE_DATE_EPOCH.
(busybox cpio writes the build's own inode numbers, so two builds differed.)"""
import os
import stat
import sys

root = sys.argv[1]
epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
out = sys.stdout.buffer


def entry(name, mode, data, ino):
    name_bytes = name.encode() + b"\0"
    header = "070701" + "".join("%08X" % v for v in (
        ino, mode, 0, 0, 1, epoch, len(data), 0, 0, 0, 0, len(name_bytes), 0))
    out.write(header.encode() + name_bytes)
    out.write(b"\0" * ((4 - (110 + len(name_bytes)) % 4) % 4))
    out.write(data)
    out.write(b"\0" * ((4 - len(data) % 4) % 4))


paths = []
for d, dirs, files in os.walk(root):
    for n in dirs + files:
        paths.append(os.path.relpath(os.path.join(d, n), root))
ino = 0
for rel in sorted(paths):
    full = os.path.join(root, rel)
    st = os.lstat(full)
    ino += 1
    if stat.S_ISLNK(st.st_mode):
        entry(rel, stat.S_IFLNK | 0o777, os.readlink(full).encode(), ino)
    elif stat.S_ISDIR(st.st_mode):
        entry(rel, stat.S_IFDIR | 0o755, b"", ino)
    else:
        with open(full, "rb") as f:
            entry(rel, stat.S_IFREG | (0o755 if st.st_mode & 0o111 else 0o644), f.read(), ino)
entry("TRAILER!!!", 0, b"", 0)
