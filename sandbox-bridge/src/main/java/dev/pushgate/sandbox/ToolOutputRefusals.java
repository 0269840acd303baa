package dev.pushgate.sandbox;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
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
      ViolationParser.parse(line.strip(), denials).map(RefusalReason::line).ifPresent(out::add);
    }
    return new ArrayList<>(out);
  }

  private static ViolationParser.Denials denials(FilesystemPolicy fs, String cwd) {
    String dir = cwd == null || !cwd.startsWith("/") ? "/" : cwd;
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
