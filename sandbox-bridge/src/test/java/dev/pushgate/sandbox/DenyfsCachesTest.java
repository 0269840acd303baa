package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.Wait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the kernel answers from its caches without asking the name-deny daemon (entries, "not
 * found", attributes, listings), and what it never may: every write of a name still reaches the
 * daemon and is judged there, however the name was looked up or listed before. Run directly on
 * the daemon's mount, as a user without root's overrides (as the sandbox's user is).
 */
class DenyfsCachesTest {
  /** An unused user id, as the bench and pushgate's own launches use when run as root. */
  private static final int USER = 2147000002;

  @TempDir Path tmp;
  private String helper;

  @BeforeEach
  void requireLayer() {
    helper = DenyfsDaemon.requireHelper();
  }

  private static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  private DenyfsDaemon daemon(String... options) throws Exception {
    Path dir = RealBwrap.searchable(tmp);
    // Made on the host: an existing denied file, and names the kernel has not seen yet.
    Path source = Files.createDirectories(dir.resolve("source"));
    Files.createDirectories(source.resolve("sub"));
    Files.writeString(source.resolve("old.pem"), "cert\n");
    Files.writeString(source.resolve("notes.txt"), "n\n");
    Files.writeString(source.resolve("a.txt"), "a\n");
    if (root()) {
      run("chown", "-R", USER + ":" + USER, source.toString());
    }
    return new DenyfsDaemon(helper, dir, options);
  }

  /** SCRIPT in the mount as the sandbox's user would run it (not root, when the test is). */
  private static String asUser(DenyfsDaemon d, String script) throws Exception {
    if (!root()) {
      return d.sh(script);
    }
    return d.sh("exec setpriv --reuid=" + USER + " --regid=" + USER + " --clear-groups -- sh -c '"
        + script.replace("'", "'\\''") + "'");
  }

  @Test
  void aDenyHoldsThroughEveryCachedLookupAndListing() throws Exception {
    try (DenyfsDaemon d = daemon("--deny", ".env", "--deny", ".env.*", "--deny", "*.pem",
        "--deny", "*.key", "--deny", "!.env.example", "--uring", "off")) {
      // Twice: the second round finds every name in the kernel's caches (60 s): the first made
      // the "not found" entries, the looked-up entries, the attributes and the listings.
      String round = String.join("\n",
          "try() {",
          "  if \"$@\" 2>/dev/null; then echo \"ALLOWED $*\"; else echo \"refused $*\"; fi",
          "}",
          "ls -la . sub > /dev/null",
          "for n in .env .ENV.production x.pem sub/id.key .env.example; do test -e $n || :; done",
          "stat old.pem a.txt notes.txt > /dev/null",
          "try sh -c 'echo A=1 > .env'",
          "try sh -c 'echo A=1 > .ENV.production'",
          "try sh -c 'echo k > sub/id.key'",
          "try mv a.txt x.pem",
          "try ln notes.txt sub/linked.key",
          "try ln -s notes.txt .env",
          "try mkdir x.pem",
          "try sh -c 'echo more >> old.pem'",
          "try ln old.pem alias.txt",
          "try mv old.pem renamed.txt",
          "echo ok > .env.example && rm .env.example && echo example written");
      for (int r = 0; r < 2; r++) {
        String out = asUser(d, round);
        assertThat(out).as("round %d", r + 1).doesNotContain("ALLOWED")
            .contains("refused sh -c echo A=1 > .env", "refused mv a.txt x.pem",
                "refused ln old.pem alias.txt", "example written");
      }
      for (String name : new String[] {".env", ".ENV.production", "x.pem", "sub/id.key",
          "sub/linked.key", "alias.txt", "renamed.txt"}) {
        assertThat(d.source.resolve(name)).as(name).doesNotExist();
      }
      assertThat(Files.readString(d.source.resolve("old.pem"))).isEqualTo("cert\n");
    }
  }

  /**
   * Opening a directory judges nothing, so the kernel is asked not to send OPENDIR and
   * RELEASEDIR (two round trips per directory listed); listing it still asks the daemon, as the
   * caller, and a listing kept from before a chmod is not shown to a caller who may no longer
   * read the directory.
   */
  @Test
  void aListingCostsNoOpenOrReleaseOfTheDirectoryAndPermissionsStillHold() throws Exception {
    DenyfsDaemon d = daemon("--deny", ".env", "--uring", "off", "--count-requests", "on");
    try (d) {
      asUser(d, String.join("\n",
          "i=0; while [ $i -lt 40 ]; do mkdir d$i && : > d$i/f; i=$((i + 1)); done",
          "[ $(find . -type f -name f | wc -l) = 40 ] && ls -R > /dev/null"));
      assertThat(asUser(d, String.join("\n",
          "ls d0 && chmod 300 d0",
          "ls d0 2>&1 > /dev/null | grep -c 'Permission denied'",
          "chmod 700 d0 && ls d0 && rm -rf d*",
          "(echo x > .env) 2>/dev/null || echo refused")))
          .isEqualTo("f\n1\nf\nrefused\n");
    }
    Wait.until(Duration.ofSeconds(10), "the counts printed",
        () -> d.said.stream().anyMatch(l -> l.startsWith("requests ")));
    Map<String, Long> counts = d.said.stream().filter(l -> l.startsWith("requests "))
        .flatMap(l -> Arrays.stream(l.substring(9).split(" ")))
        .map(kv -> kv.split("=")).collect(Collectors.toMap(kv -> kv[0], kv -> Long.valueOf(kv[1])));
    assertThat(counts.get("READDIRPLUS")).as("%s", counts).isGreaterThanOrEqualTo(40);
    assertThat(counts.getOrDefault("OPENDIR", 0L)).as("%s", counts).isLessThanOrEqualTo(1);
    assertThat(counts).doesNotContainKey("RELEASEDIR");
  }

  /**
   * A listing that goes on while its names are removed (`for e in scandir(): unlink(e)`) sees
   * every name, also where a directory's positions count its entries (an overlayfs merged
   * directory, tmpfs before Linux 6.6): with no OPENDIR, the daemon goes on in the stream the last
   * request of the listing left off in, not in one opened afresh and sought there (which skipped
   * 124 of these 300 names).
   */
  @Test
  void aListingInterleavedWithUnlinksSeesEveryNameOnAnOverlay() throws Exception {
    Assumptions.assumeTrue(root(), "mounting an overlayfs takes root");
    Path dir = RealBwrap.searchable(tmp);
    Path lower = Files.createDirectories(dir.resolve("lower/listed"));
    for (int k = 0; k < 300; k++) {
      Files.createFile(lower.resolve("a-name-long-enough-to-fill-the-kernel-s-pages-" + k));
    }
    Path upper = Files.createDirectories(dir.resolve("upper"));
    Path source = Files.createDirectories(dir.resolve("source"));
    run("chown", "-R", USER + ":" + USER, lower.getParent().toString(), upper.toString());
    Path work = Files.createDirectories(dir.resolve("overlay-work"));
    run("mount", "-t", "overlay", "overlay", "-o", "lowerdir=" + lower.getParent() + ",upperdir="
        + upper + ",workdir=" + work, source.toString());
    try (DenyfsDaemon d = new DenyfsDaemon(helper, dir, "--deny", ".env", "--uring", "off")) {
      assertThat(asUser(d, "cd listed && /usr/bin/python3 -c \"import os\n"
          + "for e in os.scandir('.'): os.unlink(e.name)\nprint('left', len(os.listdir('.')))\""))
          .isEqualTo("left 0\n");
    } finally {
      run("umount", source.toString());
    }
  }

  private static void run(String... argv) throws Exception {
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as("%s: %s", String.join(" ", argv), out).isZero();
  }
}
