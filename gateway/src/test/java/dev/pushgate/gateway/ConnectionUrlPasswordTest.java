package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import dev.pushgate.policy.ContentRule;
import dev.pushgate.policy.ContentRules;
import dev.pushgate.policy.Decision;
import dev.pushgate.policy.SecretDetectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** pushgate's own detector of a password inside a URL, run by the content rules' scanner. */
class ConnectionUrlPasswordTest {
  private static final String ID = "connection-url-password";
  private static final SecretScanner SCANNER = SecretScanner.standard();

  private static List<SecretFinding> scan(String text) throws IOException {
    return SCANNER.scan(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
        ".env.production", id -> true);
  }

  private static boolean found(String text) throws IOException {
    return scan(text).contains(new SecretFinding(ID, 2));
  }

  @Test
  void isOneOfTheStandardDetectorsAndNotAGitleaksRule() {
    assertThat(SecretDetectors.standard().ids()).contains(ID);
    assertThat(SecretDetectors.OWN_IDS).containsExactly(ID);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "DATABASE_URL=postgres://user:s3cr3tPass@db.example.com:5432/app",
      "DATABASE_URL=postgresql://app:Kq8mZ2vT@10.0.4.12/app?sslmode=require",
      "url = \"mysql://root:hunter2@mysql.internal:3306/shop\"",
      "jdbc.url=jdbc:mysql://svc:N0tS0Secret@db-1:3306/x",
      "MONGO=mongodb+srv://reader:pa55w0rd@cluster0.ab1cd.mongodb.net/prod",
      "REDIS_URL=redis://:r3disPass@cache.example.com:6379/0",
      "BROKER=amqps://bus:Zx9-Yw8_Vv7@rabbit.example.org/vhost",
      "remote = https://deploy:glpat-abcdefABCDEF12345678@gitlab.example.com/g/r.git",
      "DB=POSTGRES://APP:S3CR3T@DB.EXAMPLE.COM/APP",
      "db: postgres://u:pw9@[2001:db8::1]:5432/x",
      "db: postgres://u:s3cr3t@localhost.evil.example/x",
      "db: postgres://u:s3cr3t@127.0.0.1.nip.io/x",
      "db: postgres://u:s3cr3t@localhost@db.example.com/x",
      "see [the db](postgres://u:s3cr3t@db.example.com), there"})
  void findsAPasswordInAConnectionUrl(String line) throws IOException {
    assertThat(found("# config\n" + line + "\n")).as(line).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "DATABASE_URL=postgres://user:password@db.example.com:5432/app",
      "DATABASE_URL=postgres://app:${DB_PASSWORD}@db.example.com/app",
      "DATABASE_URL=postgres://app:$DB_PASSWORD@db.example.com/app",
      "DATABASE_URL=postgres://app:****@db.example.com/app",
      "DATABASE_URL=postgres://app:xxxx@db.example.com/app",
      "DATABASE_URL=postgres://app:<password>@db.example.com/app",
      "DATABASE_URL=postgres://app:{password}@db.example.com/app",
      "DATABASE_URL=postgres://app:%(password)s@db.example.com/app",
      "DATABASE_URL=postgres://app:changeme@db.example.com/app",
      "DATABASE_URL=postgres://postgres:postgres@localhost:5432/test",
      "DATABASE_URL=postgres://postgres:postgres@127.0.0.1/test",
      "DATABASE_URL=postgres://postgres:postgres@[::1]:5432/test",
      "see (postgres://u:s3cr3t@localhost), there",
      "DATABASE_URL=postgres://app@db.example.com/app",
      "origin = ssh://git@github.com/acme/widget.git",
      "see https://example.com:8443/path and http://a.example/x?u=a:b@c",
      "url = \"postgres://\" + user + \":\" + password + \"@\" + host"})
  void placeholdersLoopbackAndUrlsWithoutAPasswordAreNot(String line) throws IOException {
    assertThat(scan("# config\n" + line + "\n")).extracting(SecretFinding::detectorId)
        .as(line).doesNotContain(ID);
  }

  /** The text is the agent's to choose: RE2/J finds what follows a crafted line all the same. */
  @Test
  void aCraftedLineIsScannedAndTheUrlAfterItFound() throws IOException {
    String text = "# config\n" + "a://b:".repeat(50_000) + "@".repeat(50_000) + " "
        + ":".repeat(100_000) + " x://" + "u".repeat(300) + ":" + "p".repeat(300) + "@h "
        + "postgres://user:s3cr3tPass@db.example.com:5432/app\n";
    assertThat(scan(text)).contains(new SecretFinding(ID, 2));
  }

  @Test
  void theRefusalNamesTheFileTheLineAndTheDetector() {
    ContentRule noSecrets = ContentRules.DEFAULT.rules().get(1);
    ContentFinding f = new ContentFinding(".env.production", "commit 1a2b3c4", noSecrets,
        ContentFinding.Kind.SECRET, ID + ":2");
    assertThat(f.text()).isEqualTo(".env.production:2 holds a password in a connection URL"
        + " (rule \"no secrets\", pushgate id connection-url-password)");
    ContentRule own = new ContentRule("db urls", List.of(), List.of(), OptionalLong.empty(),
        false, Set.of(ID), Decision.DENY, null);
    assertThat(own.runsDetector(ID)).isTrue();
  }
}
