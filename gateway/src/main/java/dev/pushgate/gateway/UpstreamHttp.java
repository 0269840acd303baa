package dev.pushgate.gateway;

import dev.pushgate.types.Secret;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import org.eclipse.jgit.transport.UserAgent;

/**
 * Opens git's smart-HTTP requests to upstream: the ref list read before a push, the cache's
 * fetch and the push itself go out with the same timeouts, credentials and headers, and to
 * HTTP(S) URLs only. Nothing is sent until the caller asks for the answer or the request body.
 */
final class UpstreamHttp {
  static final String UPLOAD_PACK_REQUEST = "application/x-git-upload-pack-request";
  static final String UPLOAD_PACK_RESULT = "application/x-git-upload-pack-result";
  static final String RECEIVE_PACK_REQUEST = "application/x-git-receive-pack-request";
  static final String RECEIVE_PACK_RESULT = "application/x-git-receive-pack-result";

  /** A push's body is streamed in chunks of this size: a large pack is never held in memory. */
  private static final int CHUNK_BYTES = 64 * 1024;

  private final int timeoutSeconds;

  UpstreamHttp(int timeoutSeconds) {
    this.timeoutSeconds = timeoutSeconds;
  }

  /**
   * {@code POST git-upload-pack} with {@code Git-Protocol: version=2}, for one {@code ls-refs}
   * command: upstream's refs with their symbolic targets, which protocol v0 shows for HEAD only.
   * Stateless, as every v2 request over HTTP is: no {@code GET info/refs} before it, so it is
   * the one round trip the v0 list was. Buffered and sent whole, as {@link #uploadPack} (the JDK
   * sends it again on a new connection if upstream had closed the kept one: it only reads).
   */
  HttpURLConnection lsRefs(String remoteUrl, Secret token)
      throws IOException, URISyntaxException {
    HttpURLConnection http = uploadPack(remoteUrl, token);
    http.setRequestProperty("Git-Protocol", "version=2");
    return http;
  }

  /**
   * {@code POST git-upload-pack} (a fetch's wants and haves), its body buffered and sent whole
   * with the request, not streamed. Before a streamed POST the JDK checks that a kept connection
   * is still open by reading it with a 1 ms timeout ({@code HttpClient.available()}), which the
   * cache's fetch paid on the push's path when upstream moved (docs/benchmarks.md, "Upstream
   * moved: the cache's fetch on the push's path"). A buffered POST takes the kept connection
   * as it is, and the JDK sends it again on a new one if upstream had closed it: a fetch only
   * reads, so sending it twice changes nothing upstream. The body is held in memory already.
   */
  HttpURLConnection uploadPack(String remoteUrl, Secret token)
      throws IOException, URISyntaxException {
    return post(remoteUrl + "/git-upload-pack", token, UPLOAD_PACK_REQUEST, UPLOAD_PACK_RESULT);
  }

  /** {@code POST git-receive-pack}, its body streamed. */
  HttpURLConnection receivePack(String remoteUrl, Secret token)
      throws IOException, URISyntaxException {
    HttpURLConnection http = post(remoteUrl + "/git-receive-pack", token, RECEIVE_PACK_REQUEST,
        RECEIVE_PACK_RESULT);
    http.setChunkedStreamingMode(CHUNK_BYTES);
    return http;
  }

  /** A POST of a {@code contentType} body to {@code url}, answered in {@code accept}. */
  private HttpURLConnection post(String url, Secret token, String contentType, String accept)
      throws IOException, URISyntaxException {
    HttpURLConnection http = open(url, token, accept);
    http.setRequestMethod("POST");
    http.setDoOutput(true);
    http.setRequestProperty("Content-Type", contentType);
    return http;
  }

  /**
   * @throws IllegalArgumentException when {@code url} is not an HTTP(S) URL
   */
  private HttpURLConnection open(String url, Secret token, String accept)
      throws IOException, URISyntaxException {
    URI uri = new URI(url);
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("https") && !scheme.equals("http")) {
      throw new IllegalArgumentException("not an HTTP URL");
    }
    HttpURLConnection http = (HttpURLConnection) uri.toURL().openConnection();
    // A redirect would carry the token to wherever upstream points.
    http.setInstanceFollowRedirects(false);
    http.setUseCaches(false);
    http.setConnectTimeout(timeoutSeconds * 1000);
    http.setReadTimeout(timeoutSeconds * 1000);
    http.setRequestProperty("Accept", accept);
    http.setRequestProperty("User-Agent", UserAgent.get());
    http.setRequestProperty("Authorization", "Basic " + Base64.getEncoder().encodeToString(
        ("x-access-token:" + token.reveal()).getBytes(StandardCharsets.UTF_8)));
    return http;
  }
}
