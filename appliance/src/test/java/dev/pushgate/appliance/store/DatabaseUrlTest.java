package dev.pushgate.appliance.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DatabaseUrlTest {
  @Test
  void aLibpqUrlBecomesAJdbcUrlWithTheCredentialsApart() {
    Database.Target t = Database.parse("postgresql://pushgate:s3cr%40t@db.internal:5433/audit");
    assertThat(t.dialect()).isEqualTo(Database.Dialect.POSTGRESQL);
    assertThat(t.jdbcUrl()).isEqualTo("jdbc:postgresql://db.internal:5433/audit");
    assertThat(t.user()).isEqualTo("pushgate");
    assertThat(t.password()).isEqualTo("s3cr@t");
    assertThat(t.redacted()).isEqualTo("postgresql://pushgate:***@db.internal:5433/audit");
    assertThat(t).hasToString("postgresql://pushgate:***@db.internal:5433/audit");
  }

  @Test
  void queryParametersOtherThanCredentialsAreKept() {
    Database.Target t = Database.parse(
        "postgres://db/pushgate?sslmode=require&password=hunter2&currentSchema=fleet&user=app");
    assertThat(t.jdbcUrl())
        .isEqualTo("jdbc:postgresql://db/pushgate?sslmode=require&currentSchema=fleet");
    assertThat(t.user()).isEqualTo("app");
    assertThat(t.password()).isEqualTo("hunter2");
    assertThat(t.redacted()).isEqualTo(
        "postgresql://app:***@db/pushgate?sslmode=require&currentSchema=fleet");
  }

  @Test
  void aUrlWithoutAPasswordLeavesItToTheDriver() {
    Database.Target t = Database.parse("postgresql://pushgate@127.0.0.1/pushgate");
    assertThat(t.user()).isEqualTo("pushgate");
    assertThat(t.password()).isNull();
    assertThat(t.redacted()).isEqualTo("postgresql://pushgate@127.0.0.1/pushgate");
  }

  @Test
  void aJdbcPostgresUrlHasItsPasswordTakenOut() {
    Database.Target t = Database.parse(
        "jdbc:postgresql://127.0.0.1:5432/pushgate?user=pushgate&password=hunter2&ssl=false");
    assertThat(t.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/pushgate?ssl=false");
    assertThat(t.user()).isEqualTo("pushgate");
    assertThat(t.password()).isEqualTo("hunter2");
    assertThat(t.redacted())
        .isEqualTo("jdbc:postgresql://127.0.0.1:5432/pushgate?ssl=false&password=***");
  }

  @Test
  void aJdbcPostgresUrlWithUserInfoHasItTakenOut() {
    Database.Target t = Database.parse("jdbc:postgresql://pushgate:hun@ter2@db:5432/pushgate");
    assertThat(t.jdbcUrl()).isEqualTo("jdbc:postgresql://db:5432/pushgate");
    assertThat(t.user()).isEqualTo("pushgate");
    assertThat(t.password()).isEqualTo("hun@ter2");
    assertThat(t.redacted()).isEqualTo("jdbc:postgresql://db:5432/pushgate?password=***");
  }

  @Test
  void anUnencodedAtInThePasswordShowsNoPartOfIt() {
    assertThatThrownBy(() -> Database.parse("postgresql://pushgate:hun@ter2@db:5432/pushgate"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the database URL postgresql://pushgate:***@db:5432/pushgate names no host;"
            + " give a file path, jdbc:sqlite:FILE, or postgresql://USER:PASSWORD@HOST:PORT/DATABASE")
        .message().doesNotContain("ter2");
    assertThatThrownBy(() -> Database.parse("postgresql://pushgate:hun ter2@db/pushgate"))
        .message().doesNotContain("hun").doesNotContain("ter2");
    assertThatThrownBy(() -> Database.parse("mysql://root:hun@ter2@db/x?password=hun@ter2"))
        .message().doesNotContain("hun").doesNotContain("ter2");
  }

  @Test
  void anUnencodedAmpersandInAQueryPasswordIsRefusedWithoutShowingIt() {
    assertThatThrownBy(() -> Database.parse(
        "jdbc:postgresql://db/pushgate?user=app&password=hun&ter2&ssl=true"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the database URL's query has a part without '='; percent-encode '&' as %26"
            + " (and '@' as %40) in the user and password");
  }

  @Test
  void describeUrlShowsEveryFormWithoutItsPassword() {
    assertThat(Database.describeUrl(
        "jdbc:postgresql://db/pushgate?user=app&password=hunter2&ssl=true"))
        .isEqualTo("jdbc:postgresql://db/pushgate?ssl=true&password=***");
    assertThat(Database.describeUrl("postgres://app:hunter2@db/pushgate"))
        .isEqualTo("postgresql://app:***@db/pushgate");
    assertThat(Database.describeUrl(
        "jdbc:postgresql://db/pushgate?sslmode=verify-full&sslpassword=hunter2"))
        .isEqualTo("jdbc:postgresql://db/pushgate?sslmode=verify-full&sslpassword=***");
    assertThat(Database.describeUrl("postgresql://db/pushgate?sslpassword=hunter2&user=app"))
        .isEqualTo("postgresql://app@db/pushgate?sslpassword=***");
    assertThat(Database.describeUrl("jdbc:sqlite:/var/lib/pushgate/pushgate.db"))
        .isEqualTo("jdbc:sqlite:/var/lib/pushgate/pushgate.db");
  }

  @Test
  void aPathOrJdbcSqliteUrlIsSqlite() {
    Database.Target path = Database.parse("data/pushgate.db");
    assertThat(path.dialect()).isEqualTo(Database.Dialect.SQLITE);
    assertThat(path.jdbcUrl())
        .isEqualTo("jdbc:sqlite:" + Path.of("data/pushgate.db").toAbsolutePath());
    Database.Target url = Database.parse("jdbc:sqlite:/var/lib/pushgate/pushgate.db");
    assertThat(url.jdbcUrl()).isEqualTo("jdbc:sqlite:/var/lib/pushgate/pushgate.db");
    assertThat(url.user()).isNull();
  }

  @Test
  void otherDatabasesAreRefusedWithoutShowingThePassword() {
    assertThatThrownBy(() -> Database.parse("mysql://root:hunter2@db/pushgate"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unsupported database URL mysql://root:***@db/pushgate; give a file path,"
            + " jdbc:sqlite:FILE, or postgresql://USER:PASSWORD@HOST:PORT/DATABASE");
  }

  @Test
  void aPostgresUrlWithoutADatabaseIsRefused() {
    assertThatThrownBy(() -> Database.parse("postgresql://u:hunter2@db:5432"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the database URL postgresql://u:***@db:5432 names no database; give a file"
            + " path, jdbc:sqlite:FILE, or postgresql://USER:PASSWORD@HOST:PORT/DATABASE");
  }

  @Test
  void anInMemorySqliteDatabaseIsRefused() {
    assertThatThrownBy(() -> Database.parse("jdbc:sqlite::memory:"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the database must be a file, not an in-memory SQLite database:"
            + " jdbc:sqlite::memory:");
  }
}
