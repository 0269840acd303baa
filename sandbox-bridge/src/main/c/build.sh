#!/usr/bin/env bash
# Builds the name-deny layer (pushgate-denyfs) into $1. Needs gcc and libfuse3-dev (Debian:
# apt-get install gcc libfuse3-dev pkg-config). Without them the build goes on and says so: the
# launcher then refuses runs whose rules need the layer (fail closed), naming what is missing.
set -euo pipefail
out="$1"
src="$(dirname "$0")/pushgate-denyfs.c"
mkdir -p "$out"
if ! command -v gcc >/dev/null || ! pkg-config --exists fuse3 2>/dev/null; then
  echo "[pushgate-denyfs] not built: needs gcc and libfuse3-dev (pkg-config fuse3)" >&2
  rm -f "$out/pushgate-denyfs"
  exit 0
fi
if [[ "$out/pushgate-denyfs" -nt "$src" ]]; then
  exit 0
fi
# FUSE over io_uring needs liburing (Debian: liburing-dev); without it the layer uses /dev/fuse.
uring=()
if pkg-config --exists liburing 2>/dev/null; then
  read -r -a uring <<<"-DHAVE_LIBURING $(pkg-config --cflags --libs liburing)"
else
  echo "[pushgate-denyfs] built without FUSE over io_uring: needs liburing-dev" >&2
fi
# shellcheck disable=SC2046
gcc -O2 -Wall -Wextra -Werror -D_FORTIFY_SOURCE=2 -fstack-protector-strong \
  -o "$out/pushgate-denyfs" "$src" $(pkg-config --cflags --libs fuse3) "${uring[@]}" -lpthread
