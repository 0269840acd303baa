package dev.pushgate.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Reading GitHub's token answer strictly; a token found in an unusable answer is kept for revoking. */
class TokenGrantTest {
  private final ObjectMapper json = new ObjectMapper();

  private TokenGrant parse(String body) throws TokenGrant.Unreadable {
    return TokenGrant.parse(body.getBytes(StandardCharsets.UTF_8), json);
  }

  @Test
  void readsAMinimalGrant() throws Exception {
    TokenGrant grant = parse("{\"token\":\"t\",\"expires_at\":\"2026-12-02T11:00:00+01:00\","
        + "\"permissions\":{\"contents\":\"read\"}}");

    assertThat(grant.token().reveal()).isEqualTo("t");
    assertThat(grant.expiresAt()).isEqualTo(Instant.parse("2026-12-02T10:00:00Z"));
    assertThat(grant.permissions()).isEqualTo(Map.of("contents", "read"));
    assertThat(grant.repositorySelection()).isNull();
    assertThat(grant.repositories()).isNull();
  }

  @Test
  void doesNotJudgeTheTokensLengthOrShape() throws Exception {
    String stateless = "ghs_123456_eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";

    assertThat(parse("{\"token\":\"" + stateless + "\",\"expires_at\":\"2026-12-02T11:00:00Z\","
        + "\"permissions\":{}}").token().reveal()).isEqualTo(stateless);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      "not JSON                  | {\"token\":\"t\"                                       | is not valid JSON                                        | false",
      "an array                  | [\"t\"]                                                | is not a JSON object                                     | false",
      "a string                  | \"t\"                                                  | is not a JSON object                                     | false",
      "no token                  | {\"expires_at\":\"2026-12-02T11:00:00Z\"}              | has no token                                             | false",
      "numeric token             | {\"token\":42}                                         | has no token                                             | false",
      "empty token               | {\"token\":\"\"}                                       | has no token                                             | false",
      "token with a newline      | {\"token\":\"a\\nb\"}                                  | has a token with characters not allowed in an HTTP header | false",
      "no expiry                 | {\"token\":\"t\",\"permissions\":{}}                   | has no expires_at                                        | true",
      "expiry not a date         | {\"token\":\"t\",\"expires_at\":\"soon\"}              | has an expires_at that is not a date-time                | true",
      "expiry without offset     | {\"token\":\"t\",\"expires_at\":\"2026-12-02T11:00:00\"} | has an expires_at that is not a date-time              | true",
      "no permissions            | {\"token\":\"t\",\"expires_at\":\"2026-12-02T11:00:00Z\"} | does not list the token's permissions                 | true",
      "permissions a list        | {\"token\":\"t\",\"expires_at\":\"2026-12-02T11:00:00Z\",\"permissions\":[]} | does not list the token's permissions | true",
      "level a number            | {\"token\":\"t\",\"expires_at\":\"2026-12-02T11:00:00Z\",\"permissions\":{\"contents\":2}} | has a permission level that is not a string | true",
      "selection a number        | {\"token\":\"t\",\"expires_at\":\"2026-12-02T11:00:00Z\",\"permissions\":{},\"repository_selection\":1} | has a repository_selection that is not a string | true",
      "repositories an object    | {\"token\":\"t\",\"expires_at\":\"2026-12-02T11:00:00Z\",\"permissions\":{},\"repositories\":{}} | has repositories that are not a list | true",
      "repository without id     | {\"token\":\"t\",\"expires_at\":\"2026-12-02T11:00:00Z\",\"permissions\":{},\"repositories\":[{\"name\":\"a\"}]} | lists a repository without a valid id and name | true",
      "repository id negative    | {\"token\":\"t\",\"expires_at\":\"2026-12-02T11:00:00Z\",\"permissions\":{},\"repositories\":[{\"id\":-1,\"name\":\"a\"}]} | lists a repository without a valid id and name | true",
      "repository id a string    | {\"token\":\"t\",\"expires_at\":\"2026-12-02T11:00:00Z\",\"permissions\":{},\"repositories\":[{\"id\":\"1\",\"name\":\"a\"}]} | lists a repository without a valid id and name | true",
      "repository id fractional  | {\"token\":\"t\",\"expires_at\":\"2026-12-02T11:00:00Z\",\"permissions\":{},\"repositories\":[{\"id\":1.5,\"name\":\"a\"}]} | lists a repository without a valid id and name | true",
      "repository id too big     | {\"token\":\"t\",\"expires_at\":\"2026-12-02T11:00:00Z\",\"permissions\":{},\"repositories\":[{\"id\":99999999999999999999,\"name\":\"a\"}]} | lists a repository without a valid id and name | true",
      "duplicate permissions     | {\"token\":\"t\",\"expires_at\":\"2026-12-02T11:00:00Z\",\"permissions\":{\"contents\":\"write\"},\"permissions\":{}} | is not valid JSON | true",
      "duplicate token           | {\"token\":\"t\",\"token\":\"u\",\"expires_at\":\"2026-12-02T11:00:00Z\",\"permissions\":{}} | is not valid JSON | true",
  })
  void refusesMalformedAnswers(String what, String body, String why, boolean tokenKept) {
    TokenGrant.Unreadable e =
        catchThrowableOfType(TokenGrant.Unreadable.class, () -> parse(body.trim()));

    assertThat(e).as(what).isNotNull();
    assertThat(e.getMessage()).isEqualTo(why.trim());
    assertThat(e.token().isPresent()).as("token kept for revoking").isEqualTo(tokenKept);
    e.token().ifPresent(t -> assertThat(body).contains("\"" + t.reveal() + "\""));
  }
}
