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
# shellcheck disable=SC2046
gcc -O2 -Wall -Wextra -Werror -D_FORTIFY_SOURCE=2 -fstack-protector-strong \
  -o "$out/pushgate-denyfs" "$src" $(pkg-config --cflags --libs fuse3) -lpthread
