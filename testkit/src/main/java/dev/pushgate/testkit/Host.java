package dev.pushgate.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the host running the tests is: some tests need root, some behave otherwise under it. */
public final class Host {
  private Host() {}

  /** True when the tests run as root, who lends a sandbox its directories and mounts. */
  public static boolean isRoot() {
    try {
      return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
