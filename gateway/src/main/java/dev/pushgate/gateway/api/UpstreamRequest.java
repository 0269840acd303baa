package dev.pushgate.gateway.api;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import org.eclipse.jetty.http.HttpField;

/**
 * Makes the request upstream is sent: the judged method, target and body, the client's headers
 * but the hop-by-hop ones and its credentials, and the real token in the sentinel's place. A
 * header or target the HTTP client will not send denies the call (never quoting it: it may hold
 * a credential). A call whose answer carries download links asks for it unencoded, so that
 * {@link Forward} can strip their tokens ({@link DownloadLinks}).
 */
record UpstreamRequest(ApiUpstream upstream) implements CallStep {
  @Override
  public CallDecision take(ApiExchange call) {
    ApiCall c = call.call();
    HttpRequest.Builder up;
    try {
      URI target = upstream.target(c.host(), c.path(), c.query());
      up = HttpRequest.newBuilder(target)
          .timeout(Duration.ofMinutes(2))
          // Over plain HTTP (a stand-in, a forge on loopback) the JDK would ask to upgrade to
          // h2c on every call; over TLS it negotiates HTTP/2 once per connection (ALPN).
          .version(target.getScheme().equalsIgnoreCase("https")
              ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
          .method(c.method(), c.body().length == 0
              ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofByteArray(c.body()));
      // An answer carrying download links is read to strip their tokens: asked for as is.
      boolean links = DownloadLinks.carriesLinks(c.path());
      for (HttpField f : call.request.getHeaders()) {
        if (!ApiBoundary.HOP_BY_HOP.contains(f.getLowerCaseName())
            && !(links && f.getLowerCaseName().equals("accept-encoding"))) {
          up.header(f.getName(), f.getValue());
        }
      }
    } catch (IllegalArgumentException | NullPointerException e) {
      return new CallDecision.Denied("denied", "the call has a header or target pushgate cannot"
          + " send on", 400);
    }
    up.header("Authorization", "token " + call.token().reveal());
    call.upstream(up.build());
    return CallDecision.NEXT;
  }
}
