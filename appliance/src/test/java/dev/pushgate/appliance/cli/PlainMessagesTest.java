package dev.pushgate.appliance.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** No failure of the CLI reads like a crash: no exception class names, no stack frames. */
class PlainMessagesTest {
  @TempDir Path tmp;

  @Test
  void failingCommandsSayWhatIsWrongInPlainWords() throws Exception {
    Path data = tmp.resolve("data");
    Path unreadable = Files.writeString(tmp.resolve("bad.yaml"), "port: [1, 2\n");
    Path rules = Files.writeString(tmp.resolve("with-rules.yaml"),
        "rules: " + tmp.resolve("no-rules.yaml") + "\n");
    Path notADir = Files.writeString(tmp.resolve("file"), "x");
    List<String[]> commands = List.of(
        new String[] {"audit", "--database-url", "mysql://u:p@h/db", "--data-dir", data.toString()},
        new String[] {"audit", "verify", "--database-url", "postgresql://u:p@[x/db"},
        new String[] {"config", "check", "--config", tmp.resolve("missing.yaml").toString()},
        new String[] {"config", "check", "--config", unreadable.toString()},
        new String[] {"config", "check", "--config", rules.toString()},
        new String[] {"config", "check", "--config", tmp.toString()},
        new String[] {"serve", "--run-ttl", "5x", "--data-dir", data.toString()},
        new String[] {"serve", "--max-pack-size", "2t", "--data-dir", data.toString()},
        new String[] {"serve", "--port", "http", "--data-dir", data.toString()},
        new String[] {"audit", "--since", "yesterday", "--data-dir", data.toString()},
        new String[] {"forge", "create", "acme/widget", "--data-dir", notADir.toString()},
        new String[] {"runs", "--data-dir", data.toString()});
    for (String[] args : commands) {
      CliRun r = CliRun.of(args);
      assertThat(r.status()).as(String.join(" ", args)).isNotZero();
      assertThat(r.err()).as(String.join(" ", args)).startsWith("pushgate: ")
          .doesNotContain("Exception").doesNotContain("java.").doesNotContain("at dev.")
          .doesNotContain("null");
      assertThat(r.err() + r.out()).doesNotContain(":p@");
    }
  }

  /** Walk 30: the help said default-rules exec refuses to launch on Linux; it launches. */
  @Test
  void execHelpSaysTheDefaultRulesLaunchUnderTheNameDenyLayer() {
    CliRun r = CliRun.of("exec", "--help");
    String help = (r.out() + r.err()).replaceAll("\\s+", " ");
    assertThat(help).doesNotContain("they refuse to launch")
        .contains("on Linux the command runs under bubblewrap with the name-deny layer");
  }

  @Test
  void aWrappedFailureIsToldByItsCause() {
    assertThat(Failure.message(new UncheckedIOException(new NoSuchFileException("/etc/x"))))
        .isEqualTo("/etc/x: no such file or directory");
    assertThat(Failure.message(new RuntimeException(new AccessDeniedException("/etc/k.pem"))))
        .isEqualTo("/etc/k.pem: permission denied");
    assertThat(Failure.message(new IllegalStateException(
        "cannot open (java.sql.SQLException: no such table: runs)")))
        .isEqualTo("cannot open (no such table: runs)");
    assertThat(Failure.message(new IOException((String) null)))
        .isEqualTo("failed, without saying why");
  }
}
