package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

  /**
   * The judge reads {@code %63ontents} as {@code contents} and the upstream routes it so (the
   * local forge answered it with a {@code download_url} carrying {@code ?token=GHSAT0…}, handed
   * to the run): the route that carries links must be read as decoded too.
   */
  @Test
  void aContentsRouteSpeltWithAnEscapeStillLosesItsDownloadToken() throws Exception {
    String answer = "{\"download_url\":\"https://raw.githubusercontent.com/o/r/main/a?token=AAAB5\"}";

    assertThat(DownloadLinks.carriesLinks("/repos/o/r/%63ontents/a")).isTrue();
    assertThat(body("/repos/o/r/%63ontents/a", "application/json", answer))
        .doesNotContain("token=");
    assertThat(body("/repos/o/r/r%65adme", "application/json", answer))
        .doesNotContain("token=");
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

  /** Each spelling a client reads as a credential-carrying parameter, or as a login, goes. */
  @Test
  void aSameHostLocationLosesEverySpellingOfACredential() {
    String base = "https://api.github.com/repos/o/r/tarball/main";
    for (String spelt : List.of("?Token=T", "?TOKEN=T", "?%74oken=T", "?%54OKEN=T", ";token=T",
        "#token=T", "?access_token=T", "?x-amz-signature=T", "?sig=T", "?X-Amz-Security-Token=T",
        "?jwt=T")) {
      assertThat(DownloadLinks.location(base + spelt, "api.github.com")).as(spelt)
          .isEqualTo(base);
    }
    assertThat(DownloadLinks.location(base + "?page=2&Token=T;sig=S#a=1&token=T",
        "api.github.com")).isEqualTo(base + "?page=2#a=1");
    assertThat(DownloadLinks.location("https://user:pw@api.github.com/repos/o/r?token=T",
        "api.github.com")).isEqualTo("https://api.github.com/repos/o/r");
    assertThat(DownloadLinks.location("https://api.github.com/a;token=T/b;v=1?token=a/b&c=d",
        "api.github.com")).as("a value's slash ends nothing")
        .isEqualTo("https://api.github.com/a/b;v=1?c=d");
  }

  @Test
  void aSchemeRelativeLocationOffTheHostStaysSchemeRelativeWithoutItsQuery() {
    assertThat(DownloadLinks.location("//evil.example/a?sig=S", "api.github.com"))
        .isEqualTo("//evil.example/a");
    assertThat(DownloadLinks.location("//u:p@evil.example/a#token=T", "api.github.com"))
        .isEqualTo("//evil.example/a");
    assertThat(DownloadLinks.location("/repos/o/r?token=T&page=2", "api.github.com"))
        .isEqualTo("/repos/o/r?page=2");
  }

  /** JSON is read as a JSON client reads it: its escapes spell the same names. */
  @Test
  void aContentsAnswerLosesEverySpellingOfACredentialInItsLinks() throws Exception {
    String answer = "{\"download_url\":\"https://raw.githubusercontent.com/o/r/main/a?Token=A\","
        + "\"b\":\"https://x/a?%74oken=B\",\"c\":\"https://x/a;token=C\","
        + "\"d\":\"https://x/a#token=D\",\"e\":\"https://x/a?access_token=E\","
        + "\"f\":\"https://user:F@x/a\",\"g\":\"https://x/a?\\u0074oken=G\","
        + "\"name\":\"a?token=kept\",\"list\":[1,true,null,{\"h\":\"//x/a?sig=H\"}]}";
    assertThat(body("/repos/o/r/contents/a", "application/json", answer)).isEqualTo(
        "{\"download_url\":\"https://raw.githubusercontent.com/o/r/main/a\","
            + "\"b\":\"https://x/a\",\"c\":\"https://x/a\",\"d\":\"https://x/a\","
            + "\"e\":\"https://x/a\",\"f\":\"https://x/a\",\"g\":\"https://x/a\","
            + "\"name\":\"a?token=kept\",\"list\":[1,true,null,{\"h\":\"//x/a\"}]}");
  }

  /**
   * What the WHATWG URL parser (Node 20's {@code new URL(link)}, as a browser or {@code fetch}
   * follows a link; {@code curl} takes one to three slashes alike) reads as the host:
   *
   * <pre>
   * https:/h/x         h   (relative to an https page: that page's host, path /h/x)
   * https:h/x          h   (likewise)
   * https:\\h\x        h   (relative to any page too)
   * HTTPS:/h/x         h
   * ht&lt;TAB&gt;tps://h/x    h   (tab, LF and CR dropped anywhere; leading/trailing spaces too)
   * https:/&lt;TAB&gt;/h/x    h
   * https:///h/x       h
   * /\h/x  \\h/x       h   (relative to an https page)
   * https://h:99999/x  none: the parser throws (a bad port)
   * https://           none: the parser throws (no host)
   * </pre>
   *
   * Each names a host other than the call's to some client, or none it can decide: its whole
   * query goes, not only the parameters named as credentials.
   */
  @Test
  void aLocationOffTheHostInAnySpellingTheParserReadsLosesItsWholeQuery() {
    Map<String, String> spellings = new LinkedHashMap<>();
    for (String same : List.of("https:/h/x", "https:h/x", "https:\\\\h\\x", "HTTPS:/h/x",
        "/\\h/x", "\\\\h/x", "https://h:99999/x", "https://", "https:")) {
      spellings.put(same, same);
    }
    spellings.put("ht\ttps://h/x", "https://h/x");
    spellings.put("https:/\t/h/x", "https://h/x");
    spellings.put(" https:///h/x", "https:///h/x");
    spellings.put("https:/api.github.com@h/x", "https:/h/x");
    spellings.forEach((spelt, read) ->
        assertThat(DownloadLinks.location(spelt + "?v=1&token=T#f", "api.github.com"))
            .as(spelt).isEqualTo(read + "#f"));
    assertThat(DownloadLinks.location("https:\\\\u:p@h\\x?v=1", "api.github.com"))
        .isEqualTo("https:\\\\h\\x");
  }

  /** The call's own host, spelt so, keeps its query less its credentials, as before. */
  @Test
  void aLocationOnTheCallsHostInAnySpellingKeepsItsQueryLessItsCredentials() {
    for (String spelt : List.of("https:/api.github.com/x", "HTTPS:API.GITHUB.COM/x",
        "https://api.github.com:443/x", "/x", "\\x")) {
      assertThat(DownloadLinks.location(spelt + "?page=2&to\tken=T&Token=U", "api.github.com"))
          .as(spelt).isEqualTo(spelt + "?page=2");
    }
    assertThat(DownloadLinks.location("https://api.github.com/x?page=2", "api.github.com"))
        .isEqualTo("https://api.github.com/x?page=2");
  }

  @Test
  void aContentsAnswerLosesTheCredentialsOfLinksInEverySpellingTheParserReads()
      throws Exception {
    String answer = "{\"a\":\"https:/x/a?token=A\",\"b\":\"https:x/a?token=B\","
        + "\"c\":\"https:\\\\\\\\x\\\\a?token=C\",\"d\":\"ht\\ttps://x/a?token=D\","
        + "\"e\":\"https://x/a?to\\nken=E\",\"f\":\"HTTPS:u:F@x/a\","
        + "\"g\":\" \\\\\\\\u:G@x/a \",\"h\":\"to\\tken=kept\"}";
    assertThat(body("/repos/o/r/contents/a", "application/json", answer)).isEqualTo(
        "{\"a\":\"https:/x/a\",\"b\":\"https:x/a\",\"c\":\"https:\\\\\\\\x\\\\a\","
            + "\"d\":\"https://x/a\",\"e\":\"https://x/a\",\"f\":\"HTTPS:x/a\","
            + "\"g\":\"\\\\\\\\x/a\",\"h\":\"to\\tken=kept\"}");
  }

  /** Decoded as a form is, leniently: {@code +} a space, a stray {@code %} itself. */
  @Test
  void aParameterNameIsDecodedLenientlyAsAFormIs() {
    String base = "https://api.github.com/x";
    assertThat(DownloadLinks.location(base + "?%74ok%65n%zz=T&%ZZtoken=U&x%2=1&%=2&a+token=V",
        "api.github.com")).isEqualTo(base + "?x%2=1&%=2");
  }
}
