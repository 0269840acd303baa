package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The host paths of one run, as the launcher sends them. Every path is absolute, without {@code .}
 * or {@code ..} segments; a trailing slash is dropped. Entries of {@code protectedPaths} with
 * {@code *} or {@code ?} are globs and are kept as written.
 *
 * @param workdir the run's working directory: the agent's overlay workdir, or the harness bash
 *     tool's workdir (required)
 * @param agentConfigDir the agent's config dir, mounted read-only (required for overlay dispatch)
 * @param reposDir the conversation's shared {@code repos/}, mounted when it exists, or null
 * @param attachmentsDir the space's attachments dir, mounted read-only when it exists, or null
 * @param protectedPaths registered original checkouts: write-denied in every mode
 * @param runnerStateDirs where the runner keeps state: writable in every mode
 * @param execGrantRoots operator-approved trees that may exec from writable dirs (macOS only)
 * @throws SandboxRequestException naming the field when a path is missing or not absolute
 */
public record RunPaths(
    String workdir,
    String agentConfigDir,
    String reposDir,
    String attachmentsDir,
    List<String> protectedPaths,
    List<String> runnerStateDirs,
    List<String> execGrantRoots) {

  public RunPaths {
    if (workdir == null || workdir.isEmpty()) {
      throw new SandboxRequestException("workdir", "workdir is missing");
    }
    workdir = absolute(workdir, "workdir", false);
    agentConfigDir = agentConfigDir == null ? null : absolute(agentConfigDir, "agentConfigDir", false);
    reposDir = reposDir == null ? null : absolute(reposDir, "reposDir", false);
    attachmentsDir = attachmentsDir == null ? null : absolute(attachmentsDir, "attachmentsDir", false);
    protectedPaths = absolutes(protectedPaths, "protectedPaths", true);
    runnerStateDirs = absolutes(runnerStateDirs, "runnerStateDirs", false);
    execGrantRoots = absolutes(execGrantRoots, "execGrantRoots", false);
  }

  /** A run with only a workdir, as the harness bash tool has. */
  public static RunPaths workdirOnly(String workdir) {
    return new RunPaths(workdir, null, null, null, List.of(), List.of(), List.of());
  }

  static boolean isGlob(String path) {
    return path.indexOf('*') >= 0 || path.indexOf('?') >= 0;
  }

  private static List<String> absolutes(List<String> paths, String field, boolean globsAllowed) {
    if (paths == null) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < paths.size(); i++) {
      String f = field + "[" + i + "]";
      String p = paths.get(i);
      if (p == null || p.isEmpty()) {
        throw new SandboxRequestException(f, f + " is missing");
      }
      out.add(absolute(p, f, globsAllowed));
    }
    return List.copyOf(out);
  }

  private static String absolute(String p, String field, boolean globAllowed) {
    if (p.isEmpty()) {
      throw new SandboxRequestException(field, field + " is missing");
    }
    if (UntrustedText.hasControl(p)) {
      throw new SandboxRequestException(
          field, field + " has a control character: " + UntrustedText.printable(p));
    }
    if (isGlob(p) && !globAllowed) {
      throw new SandboxRequestException(
          field, field + " must be a path, not a pattern: " + UntrustedText.printable(p));
    }
    for (String segment : p.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        throw new SandboxRequestException(
            field, field + " must not contain . or .. segments: " + UntrustedText.printable(p));
      }
    }
    if (isGlob(p)) {
      if (!p.startsWith("/")) {
        throw new SandboxRequestException(
            field, field + " must be an absolute path: " + UntrustedText.printable(p));
      }
      return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }
    Path path;
    try {
      path = Path.of(p);
    } catch (InvalidPathException e) {
      throw new SandboxRequestException(field, field + " is not a valid path: " + UntrustedText.printable(p));
    }
    if (!path.isAbsolute()) {
      throw new SandboxRequestException(
          field, field + " must be an absolute path: " + UntrustedText.printable(p));
    }
    return path.toString();
  }
}
