package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DownloadLinksTest {
  private static String body(String path, String type, String text) throws Exception {
    try (InputStream in = DownloadLinks.body(path, type,
        new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void aContentsAnswerLosesTheTokenOfItsDownloadUrl() throws Exception {
    String answer = "{\"url\":\"https://api.github.com/repos/o/r/contents/a?ref=main\","
        + "\"download_url\":\"https://raw.githubusercontent.com/o/r/main/a?token=AAAB5XYZ\","
        + "\"other\":\"https://x/y?a=1&token=T2&b=2\",\"last\":\"https://x/z?token=T3&b=3\"}";

    assertThat(body("/repos/o/r/contents/a", "application/json; charset=utf-8", answer))
        .isEqualTo("{\"url\":\"https://api.github.com/repos/o/r/contents/a?ref=main\","
            + "\"download_url\":\"https://raw.githubusercontent.com/o/r/main/a\","
            + "\"other\":\"https://x/y?a=1&b=2\",\"last\":\"https://x/z?b=3\"}");
    assertThat(body("/repos/o/r/readme", "application/json", answer)).doesNotContain("token=");
  }

  @Test
  void rawBytesAndOtherRoutesAreNotRewritten() throws Exception {
    String file = "see https://x/?token=keep\n";

    assertThat(body("/repos/o/r/contents/a", "application/vnd.github.raw", file)).isEqualTo(file);
    assertThat(body("/repos/o/r/issues/1", "application/json", file)).isEqualTo(file);
  }

  @Test
  void aRedirectOffTheApiHostLosesItsQueryAndAnyTokenParameterGoes() {
    assertThat(DownloadLinks.location("https://codeload.github.com/o/r/legacy.tar.gz/refs/heads/"
        + "main?token=AAAB5XYZ", "api.github.com"))
        .isEqualTo("https://codeload.github.com/o/r/legacy.tar.gz/refs/heads/main");
    assertThat(DownloadLinks.location("https://blob.core.windows.net/a.zip?sv=1&sig=S",
        "api.github.com")).isEqualTo("https://blob.core.windows.net/a.zip");
    assertThat(DownloadLinks.location("http://127.0.0.1:9/forge/codeload/o/r/legacy.zip/main"
        + "?token=GHSAT0A", "127.0.0.1")).isEqualTo(
        "http://127.0.0.1:9/forge/codeload/o/r/legacy.zip/main");
    assertThat(DownloadLinks.location("https://api.github.com/repositories/1/pulls?page=2",
        "api.github.com")).isEqualTo("https://api.github.com/repositories/1/pulls?page=2");
  }
}
