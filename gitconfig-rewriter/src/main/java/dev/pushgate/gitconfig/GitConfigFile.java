package dev.pushgate.gitconfig;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The run's git config file, used by the run as {@code GIT_CONFIG_GLOBAL}:
 *
 * <ul>
 *   <li>{@code url.<gateway>/git/<segment>/.insteadOf} and {@code .pushInsteadOf} for every
 *       spelling of the git host that {@link GitHost#pushPrefixes()} lists (https and http, ssh
 *       and scp-like, with and without user {@code git}, default ports and a trailing dot), and, in
 *       local-forge mode, the forge base: clone, fetch, ls-remote, pull and push all go to the
 *       gateway, which serves reads from its cache and judges pushes. {@code pushInsteadOf} stays
 *       because git applies it to a remote's original URL before any {@code insteadOf}; git applies
 *       {@code insteadOf} to an explicit {@code pushurl} too, {@code pushInsteadOf} not (see {@link
 *       PushUrlRewriter}).
 *   <li>{@code http.<gateway>/git/.extraHeader = Authorization: Bearer <run credential>}, after an
 *       empty value that drops inherited headers; git sends it to that path only, for fetches and
 *       pushes alike.
 *   <li>{@code credential.helper} set empty, which drops every helper inherited from the system
 *       config: the file holds no token and git is never given one. The run credential is the only
 *       secret git holds, and it goes to the gateway only.
 *   <li>{@code http.<scope>.proxy} for every {@link GitHost#httpScopes()} scope: a proxy that
 *       cannot exist, so that an http(s) spelling of the host no prefix above rewrote (another
 *       case, a user name, a subdomain) fails with its name instead of reaching the host;
 *       {@code protocol.git.allow = never}.
 *   <li>{@code core.sshCommand}: the {@link SshPushGuard}, which refuses an SSH fetch or push to
 *       the git host that no prefix above rewrote (another user name, the host in other case),
 *       and runs {@code ssh} for everything else; {@code ssh.variant = ssh} so that git passes OpenSSH's
 *       options to it.
 *   <li>{@code user.name} and {@code user.email}: {@value #DEFAULT_NAME} {@code <}{@value
 *       #DEFAULT_EMAIL}{@code >}, so the first commit works; {@code branch.autoSetupMerge = false}
 *       and {@code push.default = current}, for a sandbox that binds the repository's config
 *       read-only, where git can store no upstream (pushgate's own launcher sets the first back to
 *       git's default where its name-deny layer stores upstreams: docs/sandbox.md).
 * </ul>
 */
public final class GitConfigFile {
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  /** Who a run commits as unless the repository, the agent or the environment says otherwise. */
  public static final String DEFAULT_NAME = "pushgate agent";

  public static final String DEFAULT_EMAIL = "agent@pushgate.invalid";

  /** The header {@link #render} writes for the gateway, and the run credential in it. */
  private static final Pattern CREDENTIAL_HEADER =
      Pattern.compile("^\textraHeader = Authorization: Bearer ([A-Za-z0-9_-]+)$",
          Pattern.MULTILINE);

  private GitConfigFile() {}

  /** The file's text. Every value and subsection is quoted as git's parser reads it back. */
  public static String render(RunGitConfig config) {
    List<String> githubForms = new ArrayList<>(config.gitHost().pushPrefixes());
    // a clone made straight from the forge fetches from and pushes to the gateway too
    config.fetchBaseUrl().ifPresent(githubForms::add);
    StringBuilder out = new StringBuilder();
    out.append("# Written by pushgate for one agent run; removed when the run ends.\n");

    section(out, "url", config.gatewayPushBase());
    for (String form : githubForms) {
      entry(out, "pushInsteadOf", form);
    }
    // Reads go through the gateway too: the run holds no token upstream would accept.
    for (String form : githubForms) {
      entry(out, "insteadOf", form);
    }

    section(out, "http", gatewayHeaderScope(config.gatewayBaseUrl()));
    entry(out, "extraHeader", "");
    entry(out, "extraHeader", "Authorization: Bearer " + config.runCredential());

    // insteadOf compares bytes, so every other http(s) spelling of the host (another case, a
    // user name, port 443, a subdomain) meets a proxy that cannot exist, named for what to do.
    String gateway = config.gatewayBaseUrl().toLowerCase(java.util.Locale.ROOT);
    for (String scope : config.gitHost().httpScopes()) {
      if (gateway.startsWith(scope)) {
        continue; // a git host on the gateway's own origin: the gateway must stay reachable
      }
      section(out, "http", scope);
      entry(out, "proxy", config.gitHost().refusingProxy());
    }
    // git:// is unauthenticated and never the gateway.
    section(out, "protocol", "git");
    entry(out, "allow", "never");

    // No helper at all, not even one inherited from the system config: git has no token to give.
    section(out, "credential");
    entry(out, "helper", "");

    section(out, "core");
    entry(out, "sshCommand", SshPushGuard.command(config.gitHost()));
    section(out, "ssh");
    entry(out, "variant", "ssh");

    // The first commit works: an identity the agent may change in its own writable config.
    section(out, "user");
    entry(out, "name", DEFAULT_NAME);
    entry(out, "email", DEFAULT_EMAIL);
    // Where the repository's .git/config is bound read-only, tracking cannot be stored: no branch
    // sets it up by itself (git would print "set up to track" after failing to), and a plain
    // `git push` pushes the branch to its own name without needing it. The sandbox's writable
    // config turns autoSetupMerge back on where the name-deny layer stores upstreams.
    section(out, "branch");
    entry(out, "autoSetupMerge", "false");
    section(out, "push");
    entry(out, "default", "current");
    return out.toString();
  }

  private static String gatewayHeaderScope(String gatewayBaseUrl) {
    return Urls.base(gatewayBaseUrl, "gateway base URL") + "/git/";
  }

  /**
   * Writes the file atomically: a new file with mode 0600 in the same directory, synced, then
   * renamed over {@code target} (an existing file or symlink there is replaced, never written
   * through). Nothing is left behind on failure.
   */
  public static void write(Path target, RunGitConfig config) throws IOException {
    write(target, config, true);
  }

  /**
   * Writes the file as {@link #write} does, atomically, but does not wait for the disk: a crash
   * of the process keeps it (the kernel holds it), a power loss may not. For a caller that checks
   * the file after such a loss before trusting it ({@link #runCredential}, {@link #holds}).
   */
  public static void writeUnsynced(Path target, RunGitConfig config) throws IOException {
    write(target, config, false);
  }

  /**
   * The run credential the file sends to the gateway, if it names one; empty when the file is
   * missing or names none (for instance a file cut short by a power loss).
   */
  public static Optional<String> runCredential(Path file) throws IOException {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    Matcher m = CREDENTIAL_HEADER.matcher(Files.readString(file, StandardCharsets.UTF_8));
    return m.find() ? Optional.of(m.group(1)) : Optional.empty();
  }

  /** Whether the file holds exactly what {@link #write} writes for {@code config}. */
  public static boolean holds(Path file, RunGitConfig config) throws IOException {
    return Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
        && Arrays.equals(Files.readAllBytes(file),
            render(config).getBytes(StandardCharsets.UTF_8));
  }

  private static void write(Path target, RunGitConfig config, boolean sync) throws IOException {
    byte[] bytes = render(config).getBytes(StandardCharsets.UTF_8);
    Path absolute = target.toAbsolutePath();
    Path dir = absolute.getParent();
    Path temp = Files.createTempFile(dir, "." + absolute.getFileName() + ".", ".tmp",
        PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    boolean moved = false;
    try {
      Files.setPosixFilePermissions(temp, OWNER_ONLY);
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        if (sync) {
          channel.force(true);
        }
      }
      Files.move(temp, absolute, StandardCopyOption.ATOMIC_MOVE);
      moved = true;
    } finally {
      if (!moved) {
        Files.deleteIfExists(temp);
      }
    }
  }

  private static void section(StringBuilder out, String name) {
    out.append('[').append(name).append("]\n");
  }

  private static void section(StringBuilder out, String name, String subsection) {
    out.append('[').append(name).append(' ').append(ConfigSyntax.subsection(subsection))
        .append("]\n");
  }

  private static void entry(StringBuilder out, String key, String value) {
    out.append('\t').append(key).append(" =");
    if (!value.isEmpty()) {
      out.append(' ').append(ConfigSyntax.value(value));
    }
    out.append('\n');
  }
}
