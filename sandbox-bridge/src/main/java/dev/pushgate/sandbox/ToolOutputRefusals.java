package dev.pushgate.sandbox;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The refusals a tool's own output shows, with their reasons, read by the launcher's parser
 * ({@link ViolationParser}) for readers the launcher never sees: Claude Code's Bash tool captures a
 * command's standard error itself, so git's {@code could not write config file .git/config:
 * Device or resource busy} reaches only the tool's result, which the run's {@code PostToolUse}
 * hook posts to the appliance. What the sandbox hides and mounts over is read from the run's plan:
 * its read-deny paths are hidden, its write-deny paths are mounted over.
 */
public final class ToolOutputRefusals {
  /** At most this many lines are read, and this many reasons given. */
  static final int MAX_LINES = 4096;
  static final int MAX_REASONS = 32;

  private ToolOutputRefusals() {}

  /**
   * One line a refusal, {@link RefusalReason#line}, each once however often the output repeats
   * it ({@code git push -u} fails to store its upstream twice).
   *
   * @param output the tool's output, standard error and standard output
   * @param fs the run's file-system rules
   * @param cwd the directory the tool ran in, against which relative paths are read
   */
  public static List<String> in(String output, FilesystemPolicy fs, String cwd) {
    ViolationParser.Denials denials = denials(fs, cwd);
    Set<String> out = new LinkedHashSet<>();
    int lines = 0;
    for (String line : output.split("\n", -1)) {
      if (++lines > MAX_LINES || out.size() >= MAX_REASONS) {
        break;
      }
      ViolationParser.parse(line.strip(), denials).map(v -> line(v, fs, cwd)).ifPresent(out::add);
    }
    return new ArrayList<>(out);
  }

  /**
   * The line for {@code v}, its reason judged on where the path lies: a write refused inside a
   * writable directory was not refused for being read-only. The name-deny layer refused it when
   * the run's globs deny its name ({@link DenyWriteGlobs#deniesName}, the list the layer is given)
   * or it is a path every run is denied, and then the reason is the layer's own ({@link
   * RefusalReason#refusedName}); otherwise the system did, for the file's own permissions.
   */
  private static String line(SandboxViolation v, FilesystemPolicy fs, String cwd) {
    boolean fileWrite = ViolationParser.FILE_WRITE.equals(v.action())
        || ViolationParser.FILE_ACCESS.equals(v.action());
    String abs = fileWrite && !v.raw().toLowerCase(Locale.ROOT).contains("read-only file system")
        ? BubblewrapArgv.absolute(v.target(), directory(cwd)) : null;
    if (abs == null || !BubblewrapArgv.underAny(abs, fs.writableRoots())) {
      return RefusalReason.line(v);
    }
    if (BubblewrapArgv.underAny(abs, fs.writeDeny())) {
      // Refused (EACCES: not a mount over it) inside a writable directory: the layer refused a
      // path every run is denied (.mcp.json made or renamed onto), as its own report says. A
      // repository config keeps its own reason: the layer judges edits to it.
      String raw = v.raw().toLowerCase(Locale.ROOT);
      boolean layer = raw.contains("permission denied") || raw.contains("eacces");
      return layer && RefusalReason.isHostToolFile(abs) && !RefusalReason.isRepositoryConfig(abs)
          ? RefusalReason.line(v, RefusalReason.refusedName(abs)) : RefusalReason.line(v);
    }
    return RefusalReason.line(v, DenyWriteGlobs.deniesName(fs.writeDenyGlobs(), abs)
        ? RefusalReason.refusedName(abs) : RefusalReason.ACCESS);
  }

  private static String directory(String cwd) {
    return cwd == null || !cwd.startsWith("/") ? "/" : cwd;
  }

  private static ViolationParser.Denials denials(FilesystemPolicy fs, String cwd) {
    String dir = directory(cwd);
    return new ViolationParser.Denials() {
      @Override
      public boolean hidden(String path) {
        String abs = BubblewrapArgv.absolute(path, dir);
        return abs != null && BubblewrapArgv.underAny(abs, fs.readDeny());
      }

      @Override
      public boolean blocked(String path) {
        return false;
      }

      @Override
      public boolean mountedOver(String path) {
        String abs = BubblewrapArgv.absolute(path, dir);
        return abs != null && BubblewrapArgv.underAny(abs, fs.writeDeny());
      }
    };
  }
}
