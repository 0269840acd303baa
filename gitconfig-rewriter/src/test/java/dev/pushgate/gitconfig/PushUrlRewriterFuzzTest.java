package dev.pushgate.gitconfig;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coverage-guided fuzzing of {@link PushUrlRewriter} on arbitrary config file bytes
 * (docs/fuzzing.md).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PushUrlRewriterFuzzTest {
  private static final String GATEWAY = "http://127.0.0.1:7070";
  private static final String TO = GATEWAY + "/git/github.com/";

  @TempDir Path dir;

  /**
   * Refused means the file is byte for byte unchanged; nothing to do leaves it unchanged too.
   * Otherwise the file reads back (as git would) with the same entries in the same order, only the
   * rewritten push URLs changed, every other byte kept, no push URL of the host left, and a second
   * rewrite finds nothing to do. No lock file is left behind.
   */
  @FuzzTest(maxDuration = "2m")
  void rewriteNeverCorruptsTheFile(byte[] before) throws IOException {
    Path config = dir.resolve("config");
    Files.write(config, before);
    List<PushUrlRewrite> rewrites;
    try {
      rewrites = PushUrlRewriter.rewrite(config, GATEWAY, "github.com");
    } catch (RepositoryConfigException e) {
      assertThat(e.getMessage()).doesNotContain("\n");
      assertThat(Files.readAllBytes(config)).isEqualTo(before);
      assertThat(dir.resolve("config.lock")).doesNotExist();
      return;
    }
    assertThat(dir.resolve("config.lock")).doesNotExist();
    byte[] after = Files.readAllBytes(config);
    if (rewrites.isEmpty()) {
      assertThat(after).isEqualTo(before);
      return;
    }
    String oldText = new String(before, StandardCharsets.ISO_8859_1);
    String newText = new String(after, StandardCharsets.ISO_8859_1);
    List<ConfigEntry> old;
    List<ConfigEntry> now;
    try {
      old = ConfigScanner.scan(oldText);
      now = ConfigScanner.scan(newText);
    } catch (ConfigSyntaxException e) {
      throw new AssertionError("a rewritten file must parse before and after", e);
    }
    assertThat(now).extracting(ConfigEntry::variable)
        .containsExactlyElementsOf(old.stream().map(ConfigEntry::variable).toList());
    List<ConfigEntry> changed = new ArrayList<>();
    for (int i = 0; i < old.size(); i++) {
      ConfigEntry o = old.get(i);
      ConfigEntry n = now.get(i);
      if (!java.util.Objects.equals(o.value(), n.value())) {
        assertThat(isPushUrl(o)).as("only push URLs change: %s", o.variable()).isTrue();
        assertThat(n.value()).startsWith(TO).endsWith(".git");
        changed.add(o);
      }
      if (isPushUrl(n)) {
        assertThat(GitHubPushUrl.match(utf8(n.value()), GitHost.GITHUB))
            .as("left pointing at the host: %s", n.value())
            .isInstanceOf(GitHubPushUrl.Elsewhere.class);
      }
    }
    assertThat(changed).hasSameSizeAs(rewrites);
    // every byte outside the rewritten values is kept
    StringBuilder expected = new StringBuilder(oldText);
    changed.sort(Comparator.comparingInt(ConfigEntry::valueStart).reversed());
    for (ConfigEntry o : changed) {
      ConfigEntry n = now.get(old.indexOf(o));
      expected.replace(o.valueStart(), o.valueEnd(), " " + ConfigSyntax.value(n.value()));
    }
    assertThat(newText).isEqualTo(expected.toString());
    assertThat(PushUrlRewriter.rewrite(config, GATEWAY, "github.com")).isEmpty();
    assertThat(Files.readAllBytes(config)).isEqualTo(after);
  }

  private static boolean isPushUrl(ConfigEntry e) {
    return e.section().equals("remote") && e.key().equals("pushurl") && e.subsection() != null
        && e.value() != null;
  }

  private static String utf8(String latin1) {
    return new String(latin1.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
  }
}
