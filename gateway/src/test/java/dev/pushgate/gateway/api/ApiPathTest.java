package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A path's segments: a plain segment is its own decoding (read without allocating, as every
 * call reads its path several times), an escaped one decoded once, and whatever two servers could
 * read two ways refused, plain or escaped.
 */
class ApiPathTest {
  @Test
  void plainSegmentsAreTheirOwnDecoding() {
    assertThat(ApiPath.segments("/repos/acme/widget/issues/1/comments"))
        .contains(List.of("repos", "acme", "widget", "issues", "1", "comments"));
    assertThat(ApiPath.segments("/repos/a-b_c.d/x~y!$&'()*+,=:@/git/refs"))
        .contains(List.of("repos", "a-b_c.d", "x~y!$&'()*+,=:@", "git", "refs"));
    assertThat(ApiPath.segments("/")).contains(List.of());
  }

  @Test
  void escapedSegmentsAreDecodedOnce() {
    assertThat(ApiPath.segments("/%72epos/acme/widget/%63ontents/caf%C3%A9.txt"))
        .contains(List.of("repos", "acme", "widget", "contents", "café.txt"));
    assertThat(ApiPath.segments("/repos/acme/widget/contents/a%20b"))
        .contains(List.of("repos", "acme", "widget", "contents", "a b"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "repos", "//repos", "/repos/", "/repos//x", "/./repos",
      "/repos/..", "/repos/%2E%2E", "/repos;x=1", "/repos\\x", "/a b", "/a\tb", "/café",
      "/a%2Fb", "/a%5Cb", "/a%252F", "/a%3Bb", "/a%0Ab", "/a%7F", "/a%", "/a%2", "/a%zz",
      "/a%C3", "/a%FF"})
  void whatCouldBeReadTwoWaysIsRefused(String raw) {
    assertThat(ApiPath.segments(raw)).isEqualTo(Optional.empty());
  }

  @Test
  void aPathOverTheLimitIsRefusedUnread() {
    assertThat(ApiPath.segments("/" + "a".repeat(ApiPath.MAX_LENGTH))).isEmpty();
  }
}
