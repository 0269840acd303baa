package dev.pushgate.appliance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.http.FixedErrorPages;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the real appliance answers where none of its handlers does: Jetty's fallback page, which
 * echoed the request's URI (a token in it, or terminal escapes for whoever prints the answer),
 * is one fixed line per status ({@link FixedErrorPages}).
 */
class ErrorPagesTest {
  @TempDir Path tmp;

  @Test
  void aPathNoHandlerServesIsAnsweredWithTheStatusAloneNotItsUri() throws Exception {
    try (TestAppliance a = TestAppliance.start(tmp.resolve("data"), null)) {
      for (String path : new String[] {"/nowhere/ghp_URIMARKtoken?q=URIQUERY%1b%5b2J",
          "/forgery/ghp_URIMARKtoken", "/v2/ghp_URIMARKtoken?q=URIQUERY%1b%5b2J"}) {
        HttpResponse<String> r = a.get(path);

        assertThat(r.statusCode()).as(path).isEqualTo(404);
        assertThat(r.body()).as(path).isEqualTo(FixedErrorPages.text(404))
            .isEqualTo("pushgate: HTTP 404 Not Found\n");
        assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");
      }
      // Jetty's own refusal keeps its fixed words, which say what to change; not the URI.
      HttpResponse<String> encoded = a.get("/git/github.com/acme%2fURIMARK.git/info/refs");
      assertThat(encoded.statusCode()).isEqualTo(400);
      assertThat(encoded.body())
          .isEqualTo("pushgate: HTTP 400 Bad Request: Ambiguous URI path separator\n");
    }
  }
}
