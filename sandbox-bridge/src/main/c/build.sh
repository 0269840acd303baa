#!/usr/bin/env bash
# Builds the name-deny layer (pushgate-denyfs) into $1. Needs gcc and libfuse3-dev (Debian:
# apt-get install gcc libfuse3-dev pkg-config). Without them the build goes on and says so: the
# launcher then refuses runs whose rules need the layer (fail closed), naming what is missing.
# The daemon speaks kernel passthrough and FUSE over io_uring itself only where the installed
# libfuse lacks them (denyfs.h): this script asks the library, says what it chose, and the daemon
# says it again at start-up and with --version.
set -euo pipefail
out="$1"
here="$(dirname "$0")"
mkdir -p "$out"
if ! command -v gcc >/dev/null || ! pkg-config --exists fuse3 2>/dev/null; then
  echo "[pushgate-denyfs] not built: needs gcc and libfuse3-dev (pkg-config fuse3)" >&2
  rm -f "$out/pushgate-denyfs"
  exit 0
fi
newest="$(ls -t "$here"/*.c "$here"/*.h "$here/build.sh" | head -n 1)"
if [[ "$out/pushgate-denyfs" -nt "$newest" ]]; then
  exit 0
fi
read -r -a fuse <<<"$(pkg-config --cflags --libs fuse3)"
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
# Whether the installed libfuse compiles and links PROGRAM (its body, after libfuse's header).
offers() {
  printf '#define FUSE_USE_VERSION 312\n#include <fuse_lowlevel.h>\n%s\n' "$1" > "$probe/p.c"
  gcc -o "$probe/p" "$probe/p.c" "${fuse[@]}" >/dev/null 2>&1
}
version="$(pkg-config --modversion fuse3)"
flags=() sources=(deny.c inodes.c ops.c config.c passthrough.c counts.c main.c) libs=()
# Passthrough: fuse_passthrough_open and the backing id in an open reply (libfuse 3.17 and later).
if offers 'int main(void) { struct fuse_file_info fi = {0}; struct fuse_conn_info c = {0};
    c.max_backing_stack_depth = 1; fi.backing_id = fuse_passthrough_open(0, 0);
    return (int) (FUSE_CAP_PASSTHROUGH & 0) + fi.backing_id; }'; then
  passthrough="by libfuse $version"
else
  passthrough="by the daemon (libfuse $version lacks fuse_passthrough_open)"
  flags+=(-DDENYFS_OWN_PASSTHROUGH)
fi
# FUSE over io_uring: libfuse's own (3.18 and later, when built with liburing), else the daemon's
# (needs liburing-dev), else none: requests then come through /dev/fuse.
libfuse_so="$(pkg-config --variable=libdir fuse3)/libfuse3.so"
if offers 'int main(void) { return (int) (FUSE_CAP_OVER_IO_URING & 0) + fuse_req_is_uring(0); }' \
    && ldd "$(readlink -f "$libfuse_so")" 2>/dev/null | grep -q liburing; then
  uring="by libfuse $version"
  flags+=(-DDENYFS_LIBFUSE_URING)
elif pkg-config --exists liburing 2>/dev/null; then
  uring="by the daemon (libfuse $version lacks it)"
  flags+=(-DDENYFS_OWN_URING)
  sources+=(uring.c)
  read -r -a libs <<<"$(pkg-config --cflags --libs liburing)"
else
  uring="none (needs liburing-dev, or a libfuse built with it)"
  echo "[pushgate-denyfs] built without FUSE over io_uring: needs liburing-dev" >&2
fi
if [[ " ${flags[*]} " == *" -DDENYFS_OWN_"* ]]; then
  sources+=(kernel_io.c) # the protocol libfuse lacks, through its custom I/O
fi
build="libfuse $version; passthrough $passthrough; io_uring $uring"
echo "[pushgate-denyfs] $build"
gcc -O2 -Wall -Wextra -Werror -D_FORTIFY_SOURCE=2 -fstack-protector-strong \
  "${flags[@]}" -DDENYFS_BUILD="\"$build\"" -o "$out/pushgate-denyfs" \
  "${sources[@]/#/$here/}" "${fuse[@]}" "${libs[@]}" -lpthread
