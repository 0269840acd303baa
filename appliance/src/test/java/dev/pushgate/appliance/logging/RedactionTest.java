package dev.pushgate.appliance.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import dev.pushgate.types.Redaction;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class RedactionTest {
  private static final String TOKEN = "ghs_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
  /** A credential of no known shape: only the word before it says what it is. */
  private static final String OPAQUE = "Zm9vOmJhcjEyMzQ1Njc4OTA";
  private static final String RUN = "pgr_" + "Zm9vYmFyYmF6cXV4cXV1eHh5enp5eHh5enp5";

  @ParameterizedTest
  @ValueSource(strings = {
      "token " + TOKEN + " leaked",
      "Authorization: Bearer " + RUN,
      "Authorization: Basic eC1hY2Nlc3MtdG9rZW46c2VjcmV0c2VjcmV0",
      "https://x-access-token:" + TOKEN + "@github.com/acme/widget.git",
      "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
      "jwt eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiIxMjMifQ.c2lnbmF0dXJlc2lnbmF0dXJl",
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA",
      "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nMIIEpAIBAAKCAQEA",
  })
  void cutsEverySecretOut(String line) {
    String out = Redaction.redact(line);
    assertThat(out).contains(Redaction.MASK);
    assertThat(out).doesNotContain(TOKEN).doesNotContain(RUN).doesNotContain("MIIEpAIBAAKCAQEA")
        .doesNotContain("c2VjcmV0c2VjcmV0").doesNotContain("c2lnbmF0dXJl");
  }

  /** Every form a database URL's password takes, in a message or on its own. */
  @ParameterizedTest
  @ValueSource(strings = {
      "postgresql://pushgate:hunter2-S3cret@db:5432/pushgate",
      "postgres://pushgate:hunter2-S3cret@db/pushgate?sslmode=require",
      "postgresql://:hunter2-S3cret@db/pushgate",
      "postgresql://pushgate:hunter2-S3cret@@db/pushgate",
      "postgresql://pushgate:hunter2@S3cret@db/pushgate",
      "postgresql://pushgate:hunter2@S3cret:x@db/pushgate",
      "postgresql://pushgate:hunter2/S3cret@db/pushgate",
      "postgresql://pushgate:hunter2#S3cret@db/pushgate",
      "postgresql://pushgate:hunter2?S3cret@db/pushgate",
      "postgresql://pushgate@azure-host:hunter2-S3cret@db/pushgate",
      "postgresql://pushgate:hunter2%40S3cret@db/pushgate",
      "jdbc:postgresql://db:5432/pushgate?user=pushgate&password=hunter2-S3cret",
      "jdbc:postgresql://db:5432/pushgate?password=hunter2-S3cret&ssl=true",
      "jdbc:postgresql://db:5432/pushgate?password=hunter2@S3cret&ssl=true",
      "jdbc:postgresql://db:5432/pushgate?PASSWORD=hunter2&S3cret&ssl=true",
      "jdbc:postgresql://db:5432/pushgate?sslmode=verify-full&sslpassword=hunter2-S3cret",
      "jdbc:postgresql://pushgate:hunter2@S3cret@db:5432/pushgate",
      "postgresql://db/pushgate?user=pushgate&password=hunter2-S3cret",
      "cannot connect to postgresql://pushgate:hunter2@S3cret@db/pushgate: refused",
  })
  void cutsEveryFormOfADatabasePasswordOut(String line) {
    String out = Redaction.redact(line);
    assertThat(out).contains(Redaction.MASK).doesNotContain("hunter2").doesNotContain("S3cret");
  }

  @Test
  void keepsWhatADatabaseUrlSaysBesidesItsPassword() {
    assertThat(Redaction.redact(
        "jdbc:postgresql://db:5432/pushgate?user=app&password=hunter2&S3cret&ssl=true"))
        .isEqualTo("jdbc:postgresql://db:5432/pushgate?user=app&password=[REDACTED]&ssl=true");
    assertThat(Redaction.redact("cannot connect to postgresql://app:hunter2@S3cret@db/pushgate:"
        + " refused")).isEqualTo("cannot connect to postgresql://[REDACTED]@db/pushgate: refused");
    String plain = "fetch https://github.com/acme/widget.git at 127.0.0.1:7070 for a@b";
    assertThat(Redaction.redact(plain)).isEqualTo(plain);
  }

  @Test
  void aMessageThatOnlyNamesAKeyHeaderKeepsIt() {
    String line = "app.pem does not contain a PEM private key (expected a line"
        + " -----BEGIN RSA PRIVATE KEY-----)";
    assertThat(Redaction.redact(line)).isEqualTo(line);
  }

  /**
   * A scheme word with a credential after it is found wherever it is, in any case: the search is
   * skipped only for a text where no scheme word has one after it.
   */
  @ParameterizedTest
  @ValueSource(strings = {
      "issued write token for acme/widget; retried with token " + OPAQUE,
      "BEARER " + OPAQUE,
      "tOkEn " + OPAQUE + " leaked",
      "token for x, basic for y, then Basic " + OPAQUE,
  })
  void aCredentialAfterASchemeWordIsCutOutAfterOthersWithout(String line) {
    String out = Redaction.redact(line);
    assertThat(out).contains(Redaction.MASK).doesNotContain(OPAQUE.substring(0, 12));
  }

  @Test
  void aSchemeWordWithoutACredentialAfterItIsLeftAlone() {
    String line = "issued write token for acme/widget; installation token revoked; Basic auth";
    assertThat(Redaction.redact(line)).isEqualTo(line);
  }

  @Test
  void leavesOrdinaryTextAlone() {
    String line = "push run=run_0123 repo=acme/widget ref=refs/heads/main kind=update decision=deny";
    assertThat(Redaction.redact(line)).isEqualTo(line);
    assertThat(Redaction.redact(null)).isNull();
  }

  /** The shipped text and JSON log formats: messages and stack traces, redacted in both. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      "/logback.xml | minted [REDACTED] for acme/widget"
          + " | java.lang.IllegalStateException: bad [REDACTED]",
      "/logback-json.xml | \"message\":\"minted [REDACTED] for acme/widget\""
          + " | \"level\":\"WARN\""})
  void theShippedLogConfigurationsRedactMessagesAndStackTraces(String configuration,
      String message, String alsoShown) throws Exception {
    String text = logThroughConfiguration(configuration);
    assertThat(text).contains(message);
    assertThat(text).contains(alsoShown);
    assertThat(text).doesNotContain(TOKEN).doesNotContain(RUN);
  }

  @Test
  void theJsonLogFormatCarriesKeyValuesAsFieldsRedacted() throws Exception {
    String text = logThroughConfiguration("/logback-json.xml");
    com.fasterxml.jackson.databind.JsonNode line = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(text.lines().filter(l -> l.contains("decision=deny")).findFirst().orElseThrow());
    assertThat(line.get("run").asText()).isEqualTo("run_0123");
    assertThat(line.get("repository").asText()).isEqualTo("acme/widget");
    assertThat(line.get("ref").asText()).isEqualTo("refs/heads/[REDACTED]");
    assertThat(line.get("decision").asText()).isEqualTo("deny");
    assertThat(line.get("code").asText()).isEqualTo("RULE_DENIED");
    assertThat(line.get("level").asText()).as("a pair never replaces a fixed field")
        .isEqualTo("INFO");
  }

  @Test
  void theLogLevelIsOneOfFour() {
    assertThat(LogLevel.check("debug")).isEqualTo("debug");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> LogLevel.check("verbose"))
        .hasMessage("--log-level takes error, warn, info, debug, not: verbose");
  }

  private static String logThroughConfiguration(String resource) throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    try {
      JoranConfigurator configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(RedactionTest.class.getResource(resource));
      var log = context.getLogger("dev.pushgate.test");
      log.info("minted {} for acme/widget", TOKEN);
      log.warn("revocation failed", new IllegalStateException("bad " + RUN));
      log.atInfo().addKeyValue("run", "run_0123").addKeyValue("repository", "acme/widget")
          .addKeyValue("ref", "refs/heads/" + TOKEN).addKeyValue("decision", "deny")
          .addKeyValue("code", "RULE_DENIED").addKeyValue("level", "forged")
          .log("push decision=deny");
    } finally {
      context.stop();
      System.setErr(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }
}
