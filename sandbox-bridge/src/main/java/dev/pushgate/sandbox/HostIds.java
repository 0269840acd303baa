package dev.pushgate.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Whether an id is already somebody's on this host. A sandbox user id must be nobody else's: a
 * process with the same uid reads the sandbox's {@code /proc/PID/environ} and its staged files.
 */
@FunctionalInterface
public interface HostIds {
  /**
   * Why the id is taken as a user or group id on this host, or null when nothing uses it.
   *
   * @throws IOException when it cannot be told (then the id is not used)
   */
  String taken(int id) throws IOException;

  /**
   * This host: an account or group with that id (in /etc/passwd, /etc/group and whatever name
   * service {@code getent} asks), a subordinate id range that contains it (a container's root may
   * map to it at any time), or a running process whose real, effective, saved or file-system uid,
   * gid or supplementary group it is.
   */
  HostIds SYSTEM = id -> {
    for (String db : List.of("/etc/passwd", "/etc/group")) {
      if (inColonFile(Path.of(db), id)) {
        return "it is an id in " + db;
      }
    }
    for (String db : List.of("/etc/subuid", "/etc/subgid")) {
      if (inSubordinateRange(Path.of(db), id)) {
        return "it is in a subordinate range of " + db;
      }
    }
    for (String db : List.of("passwd", "group")) {
      if (getentKnows(db, id)) {
        return "the name service knows it (getent " + db + ")";
      }
    }
    Integer pid = processUsing(id);
    return pid == null ? null : "process " + pid + " runs with it";
  };

  private static boolean inColonFile(Path file, int id) throws IOException {
    if (!Files.exists(file)) {
      return false;
    }
    String wanted = Integer.toString(id);
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String[] f = line.split(":", -1);
      if (f.length > 2 && f[2].strip().equals(wanted)) {
        return true;
      }
    }
    return false;
  }

  private static boolean inSubordinateRange(Path file, int id) throws IOException {
    if (!Files.exists(file)) {
      return false;
    }
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String[] f = line.split(":", -1);
      if (f.length < 3) {
        continue;
      }
      try {
        long start = Long.parseLong(f[1].strip());
        long count = Long.parseLong(f[2].strip());
        if (id >= start && id < start + count) {
          return true;
        }
      } catch (NumberFormatException e) {
        // A line that is not a range: not ours to judge.
      }
    }
    return false;
  }

  /** getent exits 0 when it found the entry, 2 when it did not; anything else is an error. */
  private static boolean getentKnows(String db, int id) throws IOException {
    Path getent = Path.of("/usr/bin/getent");
    if (!Files.isExecutable(getent)) {
      return false;
    }
    Process p = new ProcessBuilder(getent.toString(), db, Integer.toString(id))
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("getent " + db + " did not answer in 10 s");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while asking getent " + db);
    }
    int code = p.exitValue();
    if (code != 0 && code != 2) {
      throw new IOException("getent " + db + " failed with exit " + code);
    }
    return code == 0;
  }

  private static Integer processUsing(int id) throws IOException {
    String wanted = Integer.toString(id);
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path proc : procs.toList()) {
        String name = proc.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        List<String> status;
        try {
          status = Files.readAllLines(proc.resolve("status"), StandardCharsets.UTF_8);
        } catch (IOException e) {
          continue; // the process ended meanwhile
        }
        for (String line : status) {
          if (line.startsWith("Uid:") || line.startsWith("Gid:") || line.startsWith("Groups:")) {
            for (String field : line.substring(line.indexOf(':') + 1).strip().split("\\s+")) {
              if (field.equals(wanted)) {
                return Integer.valueOf(name);
              }
            }
          }
        }
      }
    }
    return null;
  }
}
