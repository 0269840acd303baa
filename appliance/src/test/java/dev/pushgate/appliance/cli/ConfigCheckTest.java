package dev.pushgate.appliance.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code config check}: serve's own checks, values printed as they are written. */
class ConfigCheckTest {
  @TempDir Path tmp;

  private CliRun check(String yaml) throws Exception {
    Path file = tmp.resolve("pushgate.yaml");
    Files.writeString(file, yaml);
    return CliRun.of("config", "check", "--config", file.toString(), "--data-dir",
        tmp.resolve("data").toString());
  }

  @Test
  void printsDurationsAndSizesInTheFormTheFileTakes() throws Exception {
    CliRun r = check("approval-timeout: 90s\nrun-ttl: 25h\nmax-pack-size: 512m\n");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).containsPattern("approval-timeout: +90s +# file")
        .containsPattern("run-ttl: +25h +# file").containsPattern("max-pack-size: +512m +# file")
        .containsPattern("refresh-before: +10m +# default").doesNotContain("PT");
    // one column of sources, however long the longest key (every value here is short)
    assertThat(r.out().lines().filter(l -> !l.startsWith("#")).map(l -> l.lastIndexOf(" # "))
        .distinct()).hasSize(1);
    // every value printed is one the file takes: the listing, as a file, checks the same
    StringBuilder again = new StringBuilder();
    Matcher m = Pattern.compile("(?m)^([a-z-]+): +(\\S+) +# (file|default)$").matcher(r.out());
    while (m.find()) {
      if (!m.group(2).equals("~") && !m.group(1).equals("data-dir")) {
        again.append(m.group(1)).append(": '").append(m.group(2)).append("'\n");
      }
    }
    CliRun back = check(again.toString());
    assertThat(back.status()).as(back.err()).isZero();
    assertThat(back.out().replace("# default", "# file")).isEqualTo(r.out()
        .replace("# default", "# file"));
  }

  @Test
  void refusesADataDirectoryServeWouldRefuse() throws Exception {
    Path data = Files.createDirectories(tmp.resolve("data"));
    Files.setPosixFilePermissions(data, java.nio.file.attribute.PosixFilePermissions
        .fromString("rwxrwxrwx"));
    CliRun r = check("");
    assertThat(r.status()).isNotZero();
    assertThat(r.err()).contains("the data directory").contains("can be written by other users")
        .doesNotContain("Exception");
    // a data directory that does not exist yet is judged by where serve would make it
    Path open = Files.createDirectories(tmp.resolve("open"));
    Files.setPosixFilePermissions(open, java.nio.file.attribute.PosixFilePermissions
        .fromString("rwxrwxrwx"));
    CliRun below = CliRun.of("config", "check", "--data-dir", open.resolve("data").toString());
    assertThat(below.status()).isNotZero();
    assertThat(below.err()).contains("above the data directory");
    assertThat(Files.exists(open.resolve("data"))).as("config check makes nothing").isFalse();
  }

  @Test
  void refusesANonLoopbackBindAsServeDoes() throws Exception {
    CliRun r = check("bind: 0.0.0.0\n");
    assertThat(r.status()).isNotZero();
    assertThat(r.err()).contains("refusing to listen on 0.0.0.0");
    CliRun forge = check("bind: 0.0.0.0\nallow-non-loopback: true\n");
    assertThat(forge.status()).isNotZero();
    assertThat(forge.err()).contains("the local forge serves on loopback only");
    assertThat(check("bind: no-such-host.invalid\n").err())
        .contains("--bind no-such-host.invalid is not an address of this host");
  }

  @Test
  void refusesTheAppsKeyAsServeDoes() throws Exception {
    CliRun missing = check("github:\n  app-id: 123456\n  app-key: " + tmp.resolve("none.pem")
        + "\n");
    assertThat(missing.status()).isNotZero();
    assertThat(missing.err()).contains("GitHub App private key " + tmp.resolve("none.pem"));
    Path notAKey = Files.writeString(tmp.resolve("app.pem"), "hello\n");
    CliRun bad = check("github:\n  app-id: 123456\n  app-key: " + notAKey + "\n");
    assertThat(bad.err()).contains("does not contain a PEM private key");
    CliRun badId = check("github:\n  app-id: 'not an id'\n  app-key: " + notAKey + "\n");
    assertThat(badId.err()).contains("not a GitHub App ID");
  }

  @Test
  void namesTheKeyOrOptionAMisspeltOneMeant() throws Exception {
    assertThat(check("aproval-timeout: 5m\n").err())
        .contains("unknown key aproval-timeout (did you mean approval-timeout?)");
    CliRun flag = CliRun.of("serve", "--aproval-timeout", "5m", "--data-dir",
        tmp.resolve("data").toString());
    assertThat(flag.status()).isEqualTo(2);
    assertThat(flag.err()).contains("'--aproval-timeout'")
        .contains("(did you mean --approval-timeout?)");
    assertThat(CliRun.of("rnus").err()).contains("(did you mean runs?)");
  }

  @Test
  void anUnknownOptionsValueIsNeverEchoedForItMayBeAWebhooksKey() {
    String slack = "https://hooks.slack.com/services/T0/B0/s3cretpath";
    for (String[] args : List.of(new String[] {"config", "check", "--webhooks", slack},
        new String[] {"config", "check", "--webhooks=" + slack})) {
      CliRun r = CliRun.of(args);
      assertThat(r.status()).isEqualTo(2);
      assertThat(r.err()).startsWith("pushgate: unknown option '--webhooks'; 1 value not shown"
              + " (it may be a secret)\n")
          .doesNotContain("s3cretpath").doesNotContain("hooks.slack.com");
    }
    CliRun positional = CliRun.of("config", "check", slack);
    assertThat(positional.err()).startsWith("pushgate: an unexpected argument, not shown (it may"
        + " be a secret)\n").doesNotContain("s3cretpath");
  }

  @Test
  void takesTheWebhooksListAndShowsNeitherItsUrlsNorItsSecrets() throws Exception {
    CliRun r = check("""
        webhooks:
          - url: https://hooks.slack.com/services/T0/B0/secretpath
            format: slack
          - url: http://127.0.0.1:9000/relay
            secret: signing-key-do-not-show
        """);
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).containsPattern("webhooks: +slack https://hooks.slack.com/\\*\\*\\*;"
        + " generic http://127.0.0.1:9000/\\*\\*\\* \\(signed\\) +# file")
        .doesNotContain("secretpath").doesNotContain("relay").doesNotContain("signing-key");
  }

  @Test
  void refusesAWebhookAsServeDoesWithoutShowingItsUrl() throws Exception {
    CliRun r = check("webhooks:\n  - url: http://hooks.example.com/secretpath\n");
    assertThat(r.status()).isNotZero();
    assertThat(r.err()).contains("webhook 1: plain http is allowed only to a loopback address"
        + " (hooks.example.com is not one)").doesNotContain("secretpath");
    CliRun mapping = check("webhooks:\n  url: https://hooks.example.com/secretpath\n");
    assertThat(mapping.status()).isNotZero();
    assertThat(mapping.err()).contains("unknown key webhooks-url").doesNotContain("secretpath");
  }
}
