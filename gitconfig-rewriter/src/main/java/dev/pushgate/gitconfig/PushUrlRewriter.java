package dev.pushgate.gitconfig;

import dev.pushgate.types.UntrustedText;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * git ignores {@code pushInsteadOf} for a remote with an explicit {@code remote.<name>.pushurl};
 * this rewrites such push URLs in a repository's config to the gateway, {@code
 * <gateway>/git/<host>/<owner>/<repo>.git}. Only the rewritten values change: every other byte of
 * the file (sections, comments, layout) stays as it was. Push URLs of other hosts are left alone.
 *
 * <p>The file is taken the way git takes it: {@code <file>.lock} is created exclusively, the new
 * text written to it and renamed over the file, so a concurrent git command either sees the lock
 * or the finished file. Includes are not followed.
 */
public final class PushUrlRewriter {
  private PushUrlRewriter() {}

  /** As {@link #rewrite(Path, String, String)} with the run's gateway and git host. */
  public static List<PushUrlRewrite> rewrite(Path repoConfigFile, RunGitConfig config)
      throws IOException {
    return rewrite(repoConfigFile, config.gatewayBaseUrl(), config.gitHost());
  }

  /** As {@link #rewrite(Path, String, GitHost)} with a host name or base URL. */
  public static List<PushUrlRewrite> rewrite(
      Path repoConfigFile, String gatewayBaseUrl, String gitHost) throws IOException {
    return rewrite(repoConfigFile, gatewayBaseUrl, GitHost.of(gitHost));
  }

  /**
   * Rewrites every {@code remote.*.pushurl} of {@code gitHost} to the gateway and returns what it
   * changed, in file order; an empty list leaves the file untouched (not even rewritten).
   *
   * @throws RepositoryConfigException when git could not parse the file, a push URL of the host
   *     does not name a safe {@code owner/repo}, the file is locked or is not a regular file; the
   *     file is then unchanged
   * @throws IllegalArgumentException when {@code gatewayBaseUrl} or {@code gitHost} is not valid
   */
  public static List<PushUrlRewrite> rewrite(
      Path repoConfigFile, String gatewayBaseUrl, GitHost host) throws IOException {
    String target = Urls.gatewayHostBase(Urls.base(gatewayBaseUrl, "gateway base URL"),
        host.segment());
    Path file = repoConfigFile.toAbsolutePath();
    if (Files.isSymbolicLink(file)) {
      throw new RepositoryConfigException(RepositoryConfigException.Reason.NOT_A_REGULAR_FILE,
          file + " is a symbolic link; not rewriting through it");
    }
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw new RepositoryConfigException(RepositoryConfigException.Reason.NOT_A_REGULAR_FILE,
          file + " is not a regular file");
    }
    Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
    Path lock = file.resolveSibling(file.getFileName() + ".lock");
    FileChannel channel;
    try {
      channel = FileChannel.open(lock, Set.of(StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(mode));
    } catch (FileAlreadyExistsException e) {
      throw new RepositoryConfigException(RepositoryConfigException.Reason.LOCKED,
          "could not lock config file " + file + ": " + lock + " exists");
    }
    boolean committed = false;
    try (channel) {
      String text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
      List<ConfigEntry> entries = parse(text, file);
      List<Planned> plan = plan(entries, host, target);
      if (plan.isEmpty()) {
        return List.of();
      }
      String updated = apply(text, plan);
      check(updated, entries, plan);
      ByteBuffer buffer = ByteBuffer.wrap(updated.getBytes(StandardCharsets.ISO_8859_1));
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(true);
      Files.setPosixFilePermissions(lock, mode);
      Files.move(lock, file, StandardCopyOption.ATOMIC_MOVE);
      committed = true;
      return plan.stream().map(Planned::rewrite).toList();
    } finally {
      if (!committed) {
        Files.deleteIfExists(lock);
      }
    }
  }

  private record Planned(ConfigEntry entry, String newValue, PushUrlRewrite rewrite) {}

  private static List<ConfigEntry> parse(String text, Path file) throws IOException {
    int nul = text.indexOf('\0');
    if (nul >= 0) {
      throw new RepositoryConfigException(RepositoryConfigException.Reason.MALFORMED,
          "config file " + file + " contains a NUL byte at offset " + nul);
    }
    try {
      return ConfigScanner.scan(text);
    } catch (ConfigSyntaxException e) {
      // git's own words
      throw new RepositoryConfigException(RepositoryConfigException.Reason.MALFORMED,
          "bad config line " + e.line() + " in file " + file);
    }
  }

  private static List<Planned> plan(List<ConfigEntry> entries, GitHost host, String target)
      throws RepositoryConfigException {
    List<Planned> plan = new ArrayList<>();
    for (ConfigEntry e : entries) {
      if (!e.section().equals("remote") || !e.key().equals("pushurl") || e.subsection() == null
          || e.value() == null) {
        continue;
      }
      String remote = utf8(e.subsection());
      String url = utf8(e.value());
      GitHubPushUrl.Match match = GitHubPushUrl.match(url, host);
      if (match instanceof GitHubPushUrl.Unsafe unsafe) {
        throw new RepositoryConfigException(RepositoryConfigException.Reason.UNSAFE_PUSH_URL,
            "remote " + UntrustedText.quoted(remote) + " has a push URL that does not name a safe "
                + "repository (" + unsafe.why() + "): " + GitHubPushUrl.redacted(url));
      }
      if (match instanceof GitHubPushUrl.Repository repo) {
        String to = target + repo.owner() + "/" + repo.name() + ".git";
        plan.add(new Planned(e, to,
            new PushUrlRewrite(remote, GitHubPushUrl.redacted(url), to)));
      }
    }
    return plan;
  }

  private static String apply(String text, List<Planned> plan) {
    StringBuilder out = new StringBuilder(text);
    List<Planned> backwards = new ArrayList<>(plan);
    backwards.sort(Comparator.comparingInt((Planned p) -> p.entry().valueStart()).reversed());
    for (Planned p : backwards) {
      // the new value is ASCII, so its ISO-8859-1 form is its UTF-8 form
      out.replace(p.entry().valueStart(), p.entry().valueEnd(),
          " " + ConfigSyntax.value(p.newValue()));
    }
    return out.toString();
  }

  /** The new text must read back as the old one with exactly the planned values changed. */
  private static void check(String updated, List<ConfigEntry> before, List<Planned> plan) {
    List<ConfigEntry> after;
    try {
      after = ConfigScanner.scan(updated);
    } catch (ConfigSyntaxException e) {
      throw new IllegalStateException("the rewritten config would not parse (line " + e.line()
          + "); nothing written");
    }
    boolean same = after.size() == before.size();
    for (int i = 0; same && i < before.size(); i++) {
      ConfigEntry b = before.get(i);
      String expected = b.value();
      for (Planned p : plan) {
        if (p.entry() == b) {
          expected = p.newValue();
        }
      }
      same = b.variable().equals(after.get(i).variable())
          && Objects.equals(expected, after.get(i).value());
    }
    if (!same) {
      throw new IllegalStateException(
          "the rewritten config does not read back as intended; nothing written");
    }
  }

  private static String utf8(String latin1) {
    return new String(latin1.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
  }
}
