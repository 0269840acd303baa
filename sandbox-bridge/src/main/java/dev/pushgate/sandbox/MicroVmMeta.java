package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the guest's init ({@code pushgate-guest-init}) reads from the read-only share {@code
 * meta}: one file per item, lines of tab-separated fields, the command NUL-separated. The files
 * are the launch's own: the environment may hold the run's gateway credential, so the directory
 * is readable by the sandbox user alone, and the init unmounts it before the command starts.
 *
 * @param mounts the run's shares: tag, {@code ro} or {@code rw}, the path in the guest
 * @param files files handed in read-only: the name in meta, the path in the guest
 * @param readOnly paths bound read-only over themselves in the guest where they exist
 * @param ports the ports the guest's loopback forwards to {@link MicroVmArgv#PEER}
 * @param uid the user id the command runs as (the host's sandbox user, the owner of the shares)
 * @param home the command's home in the guest (an empty directory of the guest's own)
 * @param env the environment as shell export lines
 * @param command the program and its arguments
 * @param workdir where the command starts
 */
public record MicroVmMeta(List<Mount> mounts, List<File> files, List<String> readOnly,
    List<Integer> ports, int uid, String home, String env, List<String> command,
    String workdir) {

  /** One of the run's shares in the guest. */
  public record Mount(String tag, boolean readOnly, String guestPath) {}

  /** A file of {@code meta} placed in the guest. */
  public record File(String name, String guestPath) {}

  public MicroVmMeta {
    mounts = List.copyOf(mounts);
    files = List.copyOf(files);
    readOnly = List.copyOf(readOnly);
    ports = List.copyOf(ports);
    command = List.copyOf(command);
    for (Mount m : mounts) {
      checkLine(m.guestPath());
    }
    for (File f : files) {
      checkLine(f.guestPath());
    }
    readOnly.forEach(MicroVmMeta::checkLine);
    checkLine(home);
    checkLine(workdir);
  }

  /** Writes the items into {@code dir}, the {@code meta} share. */
  static void write(Path dir, MicroVmMeta m) throws IOException {
    StringBuilder mounts = new StringBuilder();
    for (Mount x : m.mounts()) {
      mounts.append(x.tag()).append('\t').append(x.readOnly() ? "ro" : "rw").append('\t')
          .append(x.guestPath()).append('\n');
    }
    StringBuilder files = new StringBuilder();
    for (File f : m.files()) {
      files.append(f.name()).append('\t').append(f.guestPath()).append('\n');
    }
    StringBuilder ports = new StringBuilder();
    m.ports().forEach(p -> ports.append(p).append('\n'));
    StringBuilder command = new StringBuilder();
    m.command().forEach(c -> command.append(c).append('\0'));
    put(dir, "mounts", mounts.toString());
    put(dir, "files", files.toString());
    put(dir, "readonly", m.readOnly().isEmpty() ? "" : String.join("\n", m.readOnly()) + "\n");
    put(dir, "ports", ports.toString());
    put(dir, "uid", m.uid() + "\n");
    put(dir, "home", m.home() + "\n");
    put(dir, "env", m.env());
    put(dir, "command", command.toString());
    put(dir, "workdir", m.workdir() + "\n");
  }

  private static void put(Path dir, String name, String text) throws IOException {
    Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
  }

  /** A path the init reads as one field of one line: absolute, no tab, no newline, no NUL. */
  private static void checkLine(String path) {
    if (path == null || !path.startsWith("/") || path.indexOf('\t') >= 0
        || path.indexOf('\n') >= 0 || path.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("a guest path must be absolute, on one line, without a"
          + " tab: " + dev.pushgate.types.UntrustedText.printable(path));
    }
  }
}
