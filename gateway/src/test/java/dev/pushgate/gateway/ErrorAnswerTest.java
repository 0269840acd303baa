package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The error bodies every HTTP surface writes, in each surface's shape. */
class ErrorAnswerTest {
  @Test
  void pushgatesShapeIsOneErrorField() {
    assertThat(ErrorAnswer.PUSHGATE.body(400, "the request body is not valid UTF-8"))
        .isEqualTo("{\"error\":\"the request body is not valid UTF-8\"}");
  }

  @Test
  void githubsShapeNamesItsDocumentation() {
    assertThat(ErrorAnswer.github("https://example.test/doc").body(413, "too large"))
        .isEqualTo("{\"message\":\"too large\",\"documentation_url\":\"https://example.test/doc\"}");
  }

  @Test
  void aMessageCannotBreakOutOfItsString() {
    assertThat(ErrorAnswer.PUSHGATE.body(400, "a\"b\\c\nd\u0001e"))
        .isEqualTo("{\"error\":\"a\\\"b\\\\c\\nd\\u0001e\"}");
  }
}
