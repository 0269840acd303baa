package dev.pushgate.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.types.BoundaryHandle;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * GitHub's rendered HTML carries signed links (atk-fairbody, b1e0bb17): an image attached in a
 * private repository is rendered as {@code private-user-images.githubusercontent.com/…?jwt=…}, a
 * bearer link good from anywhere. The boundary refuses every call that asks for it, REST and
 * GraphQL, with the run's real judge; the Markdown it is rendered from still passes.
 */
class ApiBoundaryRenderedHtmlTest {
  private static final String MARKDOWN = "![s](https://github.com/user-attachments/assets/0f1e)";
  private static final String SIGNED = "<p><img src=\\\"https://private-user-images."
      + "githubusercontent.com/1/2-0f1e.png?jwt=eyJhbGciOiJIUzI1NiJ9.SIGNED\\\"></p>";
  private RunCa ca;
  private FakeUpstream upstream;
  private ApiBoundary listener;
  private BoundaryRun run;
  private final String sentinel = ApiSentinel.newValue();

  @BeforeEach
  void start() throws Exception {
    ca = RunCa.create("runs", ApiUpstream.of(URI.create("https://api.github.com")).hostNames(),
        Duration.ofHours(1));
    // GitHub: the Markdown by default, the HTML too when the call asks for it.
    upstream = FakeUpstream.start((r, out) -> {
      boolean html = r.head().startsWith("POST /graphql") ? r.body().contains("HTML")
          : String.join(",", r.header("Accept")).matches("(?i).*\\.(full|html).*");
      String issue = "\"body\":\"" + MARKDOWN + "\"" + (html ? ",\"body_html\":\"" + SIGNED
          + "\",\"bodyHTML\":\"" + SIGNED + "\"" : "");
      return FakeUpstream.answer(out, 200, "Content-Type: application/json; charset=utf-8\r\n",
          r.head().startsWith("POST /graphql")
              ? "{\"data\":{\"repository\":{\"issue\":{" + issue + "}}}}" : "{" + issue + "}");
    });
    ApiUpstream to = new ApiUpstream(upstream.base(), upstream.base(), null);
    listener = ApiBoundary.start(new ApiBoundary.Shared(to, (q, p) -> null, records -> { },
        UpstreamClient.start(to, null, UpstreamClient.ANSWER_TIMEOUT), Clock.systemUTC()));
    run = listener.open(ca, new ApiBoundary.RunApi("run-a", "ws-1", ApiSentinel.of(sentinel),
        ApiJudgeFixture.chat(""), new ReadOnlyTokens("read-token")));
  }

  @AfterEach
  void stop() throws Exception {
    listener.close();
    upstream.close();
  }

  /**
   * The finding: {@code body_html} (REST, Accept full or html in any spelling, among other
   * types) reached the run with its jwt. Now refused, unsent.
   */
  @Test
  void aSignedImageLinkGitHubRendersIntoAnIssueDoesNotReachTheRun() throws Exception {
    for (String accept : List.of("application/vnd.github.full+json",
        "application/vnd.github.v3.html", "Application/VND.GitHub.V3.Full+JSON; charset=utf-8",
        "application/json, application/vnd.github.html+json")) {
      String answer = call("GET /repos/acme/widget/issues/1", accept, null);
      assertThat(answer).as(accept).startsWith("HTTP/1.1 403 ")
          .contains("pushgate does not pass GitHub's rendered HTML").doesNotContain("jwt=");
    }
    // A file's rendered HTML is refused too: a README's images may be signed as well.
    assertThat(call("GET /repos/acme/widget/readme", "application/vnd.github.html", null))
        .startsWith("HTTP/1.1 403 ").doesNotContain("jwt=");
    assertThat(upstream.received()).isEmpty();
  }

  /**
   * Finding (atk-html2, MEDIUM): an Accept value that names a rendered-HTML type but is not a
   * well-formed list element (the type quoted, after a stray token, separated by a space instead
   * of a comma, after a comment) passes the judge and is sent; a lenient media-type matcher on
   * GitHub's side that looks for {@code vnd.github.full}/{@code .html} inside the header would
   * answer body_html with the jwt link. The judge now looks for such a type anywhere in the
   * header's text, and refuses it there too.
   */
  @Test
  void anAcceptNamingRenderedHtmlOutsideAWellFormedElementIsStillRefused() throws Exception {
    for (String accept : List.of("\"application/vnd.github.full+json\"",
        "application/json, \"application/vnd.github.full+json\"",
        "x application/vnd.github.full+json",
        "application/json application/vnd.github.html+json",
        "application/json; q=0.5 application/vnd.github.html+json",
        "(c) application/vnd.github.v3.html")) {
      assertThat(call("GET /repos/acme/widget/issues/1", accept, null)).as(accept)
          .startsWith("HTTP/1.1 403 ").doesNotContain("jwt=");
    }
    assertThat(upstream.received()).isEmpty();
  }

  /** {@code bodyHTML} and every other {@code …HTML} field, however the document reaches it. */
  @Test
  void aGraphQlQuerySelectingRenderedHtmlIsRefusedThroughAliasesAndFragments() throws Exception {
    for (String query : List.of(
        "query { repository(owner: \\\"acme\\\", name: \\\"widget\\\") { issue(number: 1)"
            + " { text: bodyHTML } } }",
        "query { repository(owner: \\\"acme\\\", name: \\\"widget\\\") { issue(number: 1)"
            + " { ...I } } } fragment I on Issue { ... on Issue { comments(first: 1)"
            + " { nodes { shown: bodyHTML } } } }",
        "query { repository(owner: \\\"acme\\\", name: \\\"widget\\\") { d: descriptionHTML } }")) {
      String answer = call("POST /graphql", null, "{\"query\":\"" + query + "\"}");
      assertThat(answer).as(query).startsWith("HTTP/1.1 403 ")
          .contains("pushgate does not pass GitHub's rendered HTML").doesNotContain("jwt=");
    }
    assertThat(upstream.received()).isEmpty();
  }

  /** What gh sends by default (its media type, GraphQL {@code body}) reads the Markdown. */
  @Test
  void theMarkdownStillPasses() throws Exception {
    assertThat(call("GET /repos/acme/widget/issues/1", "application/vnd.github+json", null))
        .startsWith("HTTP/1.1 200 ").contains(MARKDOWN).doesNotContain("jwt=");
    assertThat(call("GET /repos/acme/widget/issues/1", null, null))
        .startsWith("HTTP/1.1 200 ").contains(MARKDOWN);
    assertThat(call("POST /graphql", "application/vnd.github.merge-info-preview+json",
        "{\"query\":\"query { repository(owner: \\\"acme\\\", name: \\\"widget\\\")"
            + " { issue(number: 1) { body } } }\"}"))
        .startsWith("HTTP/1.1 200 ").contains(MARKDOWN).doesNotContain("jwt=");
  }

  private String call(String line, String accept, String body) throws Exception {
    Socket plain = new Socket(listener.address().getAddress(), listener.address().getPort());
    plain.getOutputStream().write(BoundaryHandle.proxyHeader(run.handle()));
    try (SSLSocket s = OneRunBoundary.tlsOver(plain, ca, "api.github.com")) {
      byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
      s.getOutputStream().write((line + " HTTP/1.1\r\nHost: api.github.com\r\nAuthorization: token "
          + sentinel + "\r\n" + (accept == null ? "" : "Accept: " + accept + "\r\n")
          + (body == null ? "" : "Content-Type: application/json\r\nContent-Length: " + b.length
              + "\r\n") + "Connection: close\r\n\r\n").getBytes(StandardCharsets.UTF_8));
      s.getOutputStream().write(b);
      s.getOutputStream().flush();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
