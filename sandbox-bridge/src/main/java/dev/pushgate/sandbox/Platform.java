package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.pushgate.types.EnumIds;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The host operating system, as far as sandboxing cares. */
public enum Platform {
  MACOS,
  LINUX,
  /** Linux under Windows Subsystem for Linux 2: bubblewrap works as on Linux. */
  WSL2,
  WINDOWS,
  OTHER;

  @JsonValue
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static Platform fromId(String id) {
    return EnumIds.parse(Platform.class, Platform::id, id, "a platform");
  }

  /** Linux and WSL2 share the bubblewrap backend and its limits. */
  public boolean linuxLike() {
    return this == LINUX || this == WSL2;
  }

  /**
   * Classifies a host from its {@code os.name} and, on Linux, its kernel release string (WSL2
   * kernels carry "microsoft" in it). Either may be null.
   */
  public static Platform detect(String osName, String kernelRelease) {
    String os = osName == null ? "" : osName.toLowerCase(Locale.ROOT);
    if (os.startsWith("mac") || os.contains("darwin") || os.contains("os x")) {
      return MACOS;
    }
    if (os.startsWith("windows")) {
      return WINDOWS;
    }
    if (os.startsWith("linux")) {
      String release = kernelRelease == null ? "" : kernelRelease.toLowerCase(Locale.ROOT);
      return release.contains("microsoft") || release.contains("wsl") ? WSL2 : LINUX;
    }
    return OTHER;
  }

  /** The platform this JVM runs on. */
  public static Platform current() {
    String os = System.getProperty("os.name");
    String release = null;
    if (os != null && os.toLowerCase(Locale.ROOT).startsWith("linux")) {
      try {
        release = Files.readString(Path.of("/proc/sys/kernel/osrelease"), StandardCharsets.UTF_8);
      } catch (IOException | RuntimeException e) {
        release = null;
      }
    }
    return detect(os, release);
  }
}
