package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DownloadLinksTest {
  private static String body(String path, String type, String text) throws Exception {
    return body(path, null, type, text);
  }

  private static String body(String path, String accept, String type, String text)
      throws Exception {
    try (InputStream in = DownloadLinks.body(path, accept, type,
        new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
        dev.pushgate.types.BoundedBody.Budget.NONE)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** A {@code Location} of an answer to a call to {@code callHost} (https), sent on there too. */
  private static String location(String value, String callHost) {
    return DownloadLinks.location(value, Set.of(LinkReading.Origin.ofCall(callHost).orElseThrow()));
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
  void aFileAskedForRawAndRoutesOutsideARepositoryAreNotRewritten() throws Exception {
    String file = "see https://x/?token=keep\n";

    assertThat(body("/repos/o/r/contents/a", "application/vnd.github.raw",
        "application/vnd.github.raw", file)).isEqualTo(file);
    assertThat(body("/user", "application/json", file)).isEqualTo(file);
    assertThat(body("/gists/1", "application/json", file)).isEqualTo(file);
    assertThat(body("/orgs/o/repos", "application/json", file)).isEqualTo(file);
  }

  /**
   * A reviewer's fake GitHub answered {@code /repos/o/r/license} (GitHub's {@code
   * license-content}: a contents answer's {@code download_url}) with {@code ?token=}, and it
   * reached the run: only contents and readme routes were read. Every route GitHub's description
   * gives a {@code download_url} is ({@code DownloadLinksDescriptionTest}), in any spelling the
   * judge reads as it.
   */
  @Test
  void everyRouteWithADownloadUrlIsReadForItsDownloadLinks() throws Exception {
    String answer = "{\"download_url\":\"https://raw.githubusercontent.com/o/r/main/LICENSE"
        + "?token=AAAB5\"}";
    for (String route : List.of("/repos/o/r/license", "/repos/o/r/readme/docs",
        "/REPOS/o/r/LICENSE", "/%72epos/o/r/license", "/repositories/42/contents/a",
        "/repositories/42/contents", "/api/v3/repos/o/r/license", "/API/V3/repos/o/r/Readme",
        "/repos/o/r/actions/runners/downloads", "/repos/o/r//license")) {
      assertThat(body(route, "application/json; charset=utf-8", answer)).as(route)
          .isEqualTo("{\"download_url\":\"https://raw.githubusercontent.com/o/r/main/LICENSE\"}");
    }
  }

  /**
   * Every repository route's answer was parsed and written again compact, and a link in an
   * issue's or comment's text lost its {@code code=} or {@code sig=}: what the run reads of
   * issues, pulls and comments is GitHub's answer as sent, byte for byte.
   */
  @Test
  void anIssueOrAPullRequestIsPassedAsItCame() throws Exception {
    String issue = "{\n  \"body\": \"see https://example.com/cb?code=42&state=x\",\n"
        + "  \"number\": 1.50\n}\n";
    for (String route : List.of("/repos/o/r/issues/1", "/repos/o/r/pulls",
        "/repos/o/r/issues/comments", "/repos/o/r", "/repositories/42/issues",
        "/api/v3/repos/o/r/pulls/1", "/repos/o/contents/a", "/repos/o/r/licenses")) {
      assertThat(DownloadLinks.carriesLinks(route)).as(route).isFalse();
      assertThat(body(route, "application/json; charset=utf-8", issue)).as(route)
          .isEqualTo(issue);
    }
  }

  /**
   * A contents answer labelled other than JSON kept its {@code ?token=}: the label decided.
   * What the call asked and what the body is decide now; a JSON answer is read whatever its label.
   */
  @Test
  void aRepositoryAnswerIsReadAsJsonWhateverItsLabel() throws Exception {
    String answer = "{\"download_url\":\"https://raw.githubusercontent.com/o/r/main/a?token=T\"}";
    List<String> labels = new java.util.ArrayList<>(List.of("text/plain",
        "application/octet-stream", "application/vnd.github.object", "text/html",
        "application/vnd.github.raw"));
    labels.add(null);
    for (String label : labels) {
      assertThat(body("/repos/o/r/contents/a", "application/json", label, answer)).as(label)
          .isEqualTo("{\"download_url\":\"https://raw.githubusercontent.com/o/r/main/a\"}");
    }
    assertThatThrownBy(() -> body("/repos/o/r/contents/a", null, "text/plain", "<html>token"))
        .isInstanceOf(DownloadLinks.NotJson.class)
        .hasMessage("GitHub's answer is not JSON; pushgate reads this route's answer for"
            + " its download links and passes on none it cannot read (a file's bytes: ask for"
            + " Accept: application/vnd.github.raw)");
  }

  /**
   * {@code gh api -H 'Accept: application/vnd.github.raw+json'} gets the file itself, which GitHub
   * labels with that type: it was parsed because the label held {@code json} (a raw {@code
   * package.json} came back compacted, {@code ?key=abc&code=1} gone, {@code 1.50} as {@code 1.5};
   * any other file was a 502). Asked for content, a file passes untouched.
   */
  @Test
  void aFileAskedForInAContentMediaTypePassesUntouched() throws Exception {
    String packageJson = "{\n  \"version\": 1.50,\n  \"homepage\": \"https://x/?key=abc&code=1\"\n}\n";
    for (String asked : List.of("application/vnd.github.raw+json", "application/vnd.github.raw",
        "application/vnd.github.v3.raw", "Application/VND.GitHub.V3.Raw+JSON; charset=utf-8",
        "application/vnd.github.html+json", "application/vnd.github.html",
        "application/vnd.github.v3.diff", "application/vnd.github.raw, application/vnd.github.html")) {
      assertThat(body("/repos/o/r/contents/package.json", asked, "application/vnd.github.raw+json",
          packageJson)).as(asked).isEqualTo(packageJson);
      assertThat(body("/repos/o/r/contents/a.txt", asked, "text/plain", "not json ?token=T"))
          .as(asked).isEqualTo("not json ?token=T");
    }
  }

  /**
   * GitHub's raw media type is "for files and symlinks": a directory answers its JSON listing,
   * each entry with a {@code download_url}, whatever was asked; a call asking JSON among others
   * may get JSON too. Both are read.
   */
  @Test
  void aListingAskedForRawOrAnAcceptThatAlsoTakesJsonIsStillRead() throws Exception {
    String listing = "[{\"download_url\":\"https://raw.githubusercontent.com/o/r/main/a?token=T\"}]";
    String clean = "[{\"download_url\":\"https://raw.githubusercontent.com/o/r/main/a\"}]";
    assertThat(body("/repos/o/r/contents/dir", "application/vnd.github.raw+json",
        "application/json; charset=utf-8", listing)).isEqualTo(clean);
    assertThat(body("/repos/o/r/contents/dir", "application/vnd.github.raw, application/json",
        "application/vnd.github.raw", listing)).isEqualTo(clean);
    assertThat(body("/repos/o/r/contents/dir", "*/*", "text/plain", listing)).isEqualTo(clean);
  }

  @Test
  void aRedirectOffTheApiHostLosesItsQueryAndAnyTokenParameterGoes() {
    assertThat(location("https://codeload.github.com/o/r/legacy.tar.gz/refs/heads/"
        + "main?token=AAAB5XYZ", "api.github.com"))
        .isEqualTo("https://codeload.github.com/o/r/legacy.tar.gz/refs/heads/main");
    assertThat(location("https://blob.core.windows.net/a.zip?sv=1&sig=S",
        "api.github.com")).isEqualTo("https://blob.core.windows.net/a.zip");
    assertThat(location("http://127.0.0.1:9/forge/codeload/o/r/legacy.zip/main"
        + "?token=GHSAT0A", "127.0.0.1")).isEqualTo(
        "http://127.0.0.1:9/forge/codeload/o/r/legacy.zip/main");
    assertThat(location("https://api.github.com/repositories/1/pulls?page=2",
        "api.github.com")).isEqualTo("https://api.github.com/repositories/1/pulls?page=2");
  }

  /** Each spelling a client reads as a credential-carrying parameter, or as a login, goes. */
  @Test
  void aSameHostLocationLosesEverySpellingOfACredential() {
    String base = "https://api.github.com/repos/o/r/tarball/main";
    for (String spelt : List.of("?Token=T", "?TOKEN=T", "?%74oken=T", "?%54OKEN=T", ";token=T",
        "#token=T", "?access_token=T", "?x-amz-signature=T", "?sig=T", "?X-Amz-Security-Token=T",
        "?jwt=T")) {
      assertThat(location(base + spelt, "api.github.com")).as(spelt)
          .isEqualTo(base);
    }
    assertThat(location(base + "?page=2&Token=T;sig=S#a=1&token=T",
        "api.github.com")).isEqualTo(base + "?page=2#a=1");
    assertThat(location("https://user:pw@api.github.com/repos/o/r?token=T",
        "api.github.com")).isEqualTo("https://api.github.com/repos/o/r");
    assertThat(location("https://api.github.com/a;token=T/b;v=1?token=a/b&c=d",
        "api.github.com")).as("a value's slash ends nothing")
        .isEqualTo("https://api.github.com/a/b;v=1?c=d");
  }

  @Test
  void aSchemeRelativeLocationOffTheHostStaysSchemeRelativeWithoutItsQuery() {
    assertThat(location("//evil.example/a?sig=S", "api.github.com"))
        .isEqualTo("//evil.example/a");
    assertThat(location("//u:p@evil.example/a#token=T", "api.github.com"))
        .isEqualTo("//evil.example/a");
    assertThat(location("/repos/o/r?token=T&page=2", "api.github.com"))
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
        assertThat(location(spelt + "?v=1&token=T#f", "api.github.com"))
            .as(spelt).isEqualTo(read + "#f"));
    assertThat(location("https:\\\\u:p@h\\x?v=1", "api.github.com"))
        .isEqualTo("https:\\\\h\\x");
  }

  /** The call's own host, spelt so, keeps its query less its credentials, as before. */
  @Test
  void aLocationOnTheCallsHostInAnySpellingKeepsItsQueryLessItsCredentials() {
    for (String spelt : List.of("https:/api.github.com/x", "HTTPS:API.GITHUB.COM/x",
        "https://api.github.com:443/x", "/x", "\\x")) {
      assertThat(location(spelt + "?page=2&to\tken=T&Token=U", "api.github.com"))
          .as(spelt).isEqualTo(spelt + "?page=2");
    }
    assertThat(location("https://api.github.com/x?page=2", "api.github.com"))
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
    assertThat(location(base + "?%74ok%65n%zz=T&%ZZtoken=U&x%2=1&%=2&a+token=V",
        "api.github.com")).isEqualTo(base + "?x%2=1&%=2");
  }

  /**
   * A backslash before {@code @}: the WHATWG parser (a browser, Node's {@code new URL}, {@code
   * fetch}) reads host {@code api.github.com} and path {@code /@evil.example/x}; curl and Python's
   * requests (RFC 3986: the authority runs to the first {@code /}) read userinfo {@code
   * api.github.com\} and host {@code evil.example}, and send the query there. Undecided: its query
   * goes.
   */
  @Test
  void aLinkTwoReadingsSendToDifferentHostsLosesItsWholeQuery() {
    assertThat(location("https://api.github.com\\@evil.example/x?zz=SECRET", "api.github.com"))
        .isEqualTo("https://api.github.com\\@evil.example/x");
    assertThat(location("//api.github.com\\@evil.example/x?zz=SECRET#f", "api.github.com"))
        .isEqualTo("//api.github.com\\@evil.example/x#f");
    assertThat(location("https://api.github.com:443\\@evil.example:443/x?zz=S", "api.github.com"))
        .isEqualTo("https://api.github.com:443\\@evil.example:443/x");
    // Both readings agree: kept.
    assertThat(location("https://api.github.com/x\\@y?page=2", "api.github.com"))
        .isEqualTo("https://api.github.com/x\\@y?page=2");
  }

  /**
   * With {@code --github-api-url} not api.github.com, GitHub's absolute pagination redirect to
   * {@code https://api.github.com/repositories/42/…} lost its query: the call's host was not
   * among those compared. A link back to another port of a host kept its query: the port was
   * not compared. Host and port are compared with the call's and the upstream's.
   */
  @Test
  void aLocationKeepsItsQueryOnlyBackToTheCallsOrTheUpstreamsHostAndPort() {
    Set<LinkReading.Origin> backTo = Set.of(LinkReading.Origin.ofCall("api.github.com").orElseThrow(),
        new LinkReading.Origin("127.0.0.1", 8080));
    for (String kept : List.of("https://api.github.com/repositories/42/issues?page=2&per_page=100",
        "https://api.github.com:443/x?page=2", "http://127.0.0.1:8080/x?page=2",
        "//api.github.com/x?page=2", "/x?page=2")) {
      assertThat(DownloadLinks.location(kept, backTo)).as(kept).isEqualTo(kept);
    }
    for (String off : List.of("https://api.github.com:8443/x", "http://api.github.com/x",
        "http://127.0.0.1/x", "https://127.0.0.1/x", "http://127.0.0.1:8081/x",
        "//127.0.0.1:8443/x")) {
      assertThat(DownloadLinks.location(off + "?zz=1", backTo)).as(off).isEqualTo(off);
    }
    assertThat(location("https://[::1]:8443/x?zz=1", "[::1]:8443"))
        .isEqualTo("https://[::1]:8443/x?zz=1");
    assertThat(location("https://[::1]/x?zz=1", "[::1]:8443")).isEqualTo("https://[::1]/x");
  }
}
