package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class GhValueFlagTest {
  private static GhValueFlag.Value methodAt(int k, String... words) {
    return GhValueFlag.METHOD.at(List.of(words), k);
  }

  @Test
  void readsEverySpellingGhAccepts() {
    assertThat(methodAt(1, "api", "-X", "POST", "x")).isEqualTo(new GhValueFlag.Value("POST", 2));
    assertThat(methodAt(1, "api", "--method", "PUT")).isEqualTo(new GhValueFlag.Value("PUT", 2));
    assertThat(methodAt(1, "api", "--method=PATCH")).isEqualTo(new GhValueFlag.Value("PATCH", 1));
    assertThat(methodAt(1, "api", "-XDELETE")).isEqualTo(new GhValueFlag.Value("DELETE", 1));
  }

  @Test
  void aFlagWithoutItsValueOrAnotherWordGivesNone() {
    assertThat(methodAt(1, "api", "-X")).isNull();
    assertThat(methodAt(1, "api", "--method")).isNull();
    assertThat(methodAt(1, "api", "--methods=POST")).isNull();
    assertThat(methodAt(1, "api", "-H", "X: y")).isNull();
    assertThat(GhValueFlag.HOSTNAME.at(List.of("-Hevil.example"), 0)).isNull();
    assertThat(GhValueFlag.HOSTNAME.at(List.of("--hostname", "evil.example"), 0))
        .isEqualTo(new GhValueFlag.Value("evil.example", 1));
  }
}
