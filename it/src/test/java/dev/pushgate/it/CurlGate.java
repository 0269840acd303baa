package dev.pushgate.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A {@code curl} first on the PATH that holds each call until the test lets it go, then runs the
 * real curl with the same arguments and stdin. While it waits, it and the process that called
 * it (git's credential helper, the hook script) are alive, so the test reads their command lines
 * for certain instead of hoping to catch a call of a few milliseconds.
 */
final class CurlGate {
  private final Path bin;
  private final Path waiting;
  private final Set<Path> released = new HashSet<>();

  private CurlGate(Path bin, Path waiting) {
    this.bin = bin;
    this.waiting = waiting;
  }

  static CurlGate in(Path dir) throws IOException {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path waiting = Files.createDirectories(dir.resolve("waiting"));
    String curl = realCurl();
    // each call makes a FIFO and blocks opening it until the test writes to it
    Files.writeString(bin.resolve("curl"), "#!/bin/sh\n"
        + "gate='" + waiting + "'/curl.$$\n"
        + "mkfifo \"$gate\" && read -r _ < \"$gate\"\n"
        + "exec '" + curl + "' \"$@\"\n", StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(bin.resolve("curl"), PosixFilePermissions.fromString("rwx------"));
    return new CurlGate(bin, waiting);
  }

  /** The PATH that finds the gate's curl first. */
  String path() {
    return bin + ":" + System.getenv("PATH");
  }

  /** The calls now held; each is alive, with its caller, until {@link #release}. */
  List<Path> held() throws IOException {
    try (Stream<Path> s = Files.list(waiting)) {
      return s.filter(p -> !released.contains(p)).sorted().toList();
    }
  }

  void release(Path call) throws IOException {
    released.add(call);
    Files.writeString(call, "go\n", StandardCharsets.UTF_8);
    Files.delete(call);
  }

  int releasedCount() {
    return released.size();
  }

  private static String realCurl() {
    for (String dir : System.getenv("PATH").split(":")) {
      Path candidate = Path.of(dir, "curl");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    throw new IllegalStateException("curl is not on the PATH; install curl");
  }
}
