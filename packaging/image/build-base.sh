#!/usr/bin/env bash
# The container image's base, built here because no registry is reached from where pushgate is
# built (docs/operations.md#container-image): a Java runtime made with jlink from the build's JDK,
# the shared libraries it needs copied from the build host, /etc/passwd with the image's user,
# and the directories the appliance writes. Written as a one-layer image in `docker save` form,
# OUT/base.tar, that Jib takes as its base (from.image tar://…); Jib adds the appliance's jar.
#
# Usage: build-base.sh JAVA_HOME OUT UID
# Reproducible: the same JDK and host libraries give the same layer, byte for byte (sorted
# entries, fixed times and owners).
set -euo pipefail
java_home=$1 out=$2 uid=$3
if [[ $(uname -m) != x86_64 ]]; then
  # the image config and the library paths below are x86-64's
  echo "build-base.sh: the image is built on x86-64 hosts only, not on $(uname -m)" >&2
  exit 1
fi
# The modules the appliance needs: jdeps --print-module-deps on pushgate.jar (java.base,
# java.desktop, java.net.http, java.security.jgss, java.sql, jdk.management,
# jdk.security.auth, jdk.unsupported), plus what is loaded as a service and so never shows in
# jdeps: EC keys and TLS (jdk.crypto.ec), the zip file system, JNDI, java.logging. jdeps takes
# 20 s on the jar, so the list is kept here; ContainerImageTest starts the image to check it.
modules=java.base,java.desktop,java.logging,java.management,java.naming,java.net.http,\
java.security.jgss,java.sql,java.xml,jdk.crypto.ec,jdk.management,jdk.security.auth,\
jdk.unsupported,jdk.zipfs

root=$out/rootfs
# What the base is made of: this script, the JDK, the user, and the host libraries it copied.
# The same inputs give the same base, so a build that changes none of them keeps the last one
# (jlink is most of the cost of an `it` build's image step).
inputs() {
  sha256sum "$0" "$java_home/release"
  echo "$java_home $uid"
  if [[ -d $root ]]; then
    (cd "$root" && find lib lib64 -type f | sort | sed 's|^|/|' | xargs sha256sum)
  fi
}
if [[ -f $out/base.tar && -f $out/inputs && "$(inputs)" == "$(cat "$out/inputs")" ]]; then
  echo "build-base.sh: $out/base.tar is up to date"
  exit 0
fi
rm -rf "$root" "$out/base.tar" "$out/layer.tar" "$out/inputs"
mkdir -p "$root"/opt "$root"/etc "$root"/tmp "$root"/data "$root"/run/pushgate "$root"/lib64
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
  --compress=2 --output "$root/opt/java"

# The libraries the runtime links (ldd), from the host, at the paths the loader looks in; and the
# loader itself at the path the binaries name. Not those of AWT's native libraries: the
# appliance uses java.desktop's classes (java.beans), never a window, font or sound.
natives=$(find "$root/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \) \
  ! -name 'libawt*' ! -name 'libjawt.so' ! -name 'libfontmanager.so' ! -name 'libjavajpeg.so' \
  ! -name 'liblcms.so' ! -name 'libmlib_image.so' ! -name 'libsplashscreen.so' \
  ! -name 'libjsound.so' | sort)
# libjvm.so is found by the runtime itself, beside them.
missing=$(ldd $natives 2>/dev/null | grep 'not found' | grep -v 'libjvm.so' || true)
if [[ -n $missing ]]; then
  echo "build-base.sh: the Java runtime needs libraries this host lacks: $missing" >&2
  exit 1
fi
libs=$(ldd $natives 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | grep -v "^$root" \
  | sort -u)
# sqlite-jdbc's native library is unpacked at run time; it links these besides libc.
libs="$libs $(ls /lib/x86_64-linux-gnu/libdl.so.2 /lib/x86_64-linux-gnu/libpthread.so.0 2>/dev/null || true)"
for lib in $libs; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
# ldd names the loader alone on its line: "/lib64/ld-linux-x86-64.so.2 (0x…)"
loader=$(ldd "$root/opt/java/bin/java" | awk '$1 ~ /^\// && $2 != "=>" {print $1; exit}')
if [[ -z $loader ]]; then
  echo "build-base.sh: cannot tell the dynamic loader of $root/opt/java/bin/java" >&2
  exit 1
fi
mkdir -p "$root$(dirname "$loader")"
cp -L "$loader" "$root$loader"

printf 'root:x:0:0:root:/root:/sbin/nologin\npushgate:x:%s:%s:pushgate:/data:/sbin/nologin\n' \
  "$uid" "$uid" > "$root/etc/passwd"
printf 'root:x:0:\npushgate:x:%s:\n' "$uid" > "$root/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$root/etc/nsswitch.conf"
chmod 0644 "$root"/etc/*
chmod 1777 "$root/tmp"
chmod 0700 "$root/data"
chmod 0750 "$root/run/pushgate"

# Everything root's, but the data and runtime directories, which are the image user's: the
# appliance refuses a data directory of another user (a named volume takes them over).
common=(--sort=name --mtime=@0 --format=gnu --numeric-owner)
(cd "$root" && tar -cf "$out/layer.tar" "${common[@]}" --owner=0 --group=0 \
  --exclude=./data --exclude=./run/pushgate .)
(cd "$root" && tar -rf "$out/layer.tar" "${common[@]}" --owner="$uid" --group="$uid" \
  --no-recursion ./data ./run/pushgate)

diff_id=$(sha256sum "$out/layer.tar" | cut -d' ' -f1)
cat > "$out/config.json" <<JSON
{"architecture":"amd64","os":"linux","config":{},"rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},"history":[{"created":"1970-01-01T00:00:00Z","created_by":"packaging/image/build-base.sh"}]}
JSON
echo '[{"Config":"config.json","RepoTags":["pushgate-base:local"],"Layers":["layer.tar"]}]' \
  > "$out/manifest.json"
(cd "$out" && tar -cf base.tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
  manifest.json config.json layer.tar)
rm -f "$out/layer.tar"
inputs > "$out/inputs"
