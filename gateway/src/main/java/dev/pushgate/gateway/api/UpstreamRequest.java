package dev.pushgate.gateway.api;

import java.net.URI;
import java.nio.ByteBuffer;
import org.eclipse.jetty.client.ByteBufferRequestContent;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;

/**
 * Makes the request upstream is sent: the judged method, target and body, the client's headers
 * but the hop-by-hop ones and its credentials, and the real token in the sentinel's place. A
 * target the HTTP client will not send denies the call (never quoting it: it may hold a
 * credential). A call whose answer carries download links asks for it unencoded, so that
 * {@link Forward} can strip their tokens ({@link DownloadLinks}).
 */
record UpstreamRequest(ApiUpstream upstream, UpstreamClient client) implements CallStep {
  @Override
  public CallDecision take(ApiExchange call) {
    ApiCall c = call.call();
    Request up;
    try {
      URI target = upstream.target(c.host(), c.path(), c.query());
      // HTTP/1.1 on a kept-alive connection of the client's pool, over TLS or plain HTTP alike.
      up = client.newRequest(target).method(c.method());
    } catch (IllegalArgumentException | NullPointerException e) {
      return new CallDecision.Denied("denied", "the call has a header or target pushgate cannot"
          + " send on", 400);
    }
    if (c.body().length > 0) {
      // The judged bytes themselves, wrapped, not copied; the client's Content-Type is a header.
      up.body(new ByteBufferRequestContent((String) null, ByteBuffer.wrap(c.body())));
    }
    // An answer carrying download links is read to strip their tokens: asked for as is.
    boolean links = DownloadLinks.carriesLinks(c.path());
    up.headers(headers -> {
      for (HttpField f : call.request.getHeaders()) {
        if (!ApiBoundary.HOP_BY_HOP.contains(f.getLowerCaseName())
            && !(links && f.getLowerCaseName().equals("accept-encoding"))) {
          headers.add(f);
        }
      }
      headers.put(HttpHeader.AUTHORIZATION, "token " + call.token().reveal());
    });
    call.upstream(up);
    return CallDecision.NEXT;
  }
}
