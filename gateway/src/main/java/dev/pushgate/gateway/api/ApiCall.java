package dev.pushgate.gateway.api;

/**
 * One GitHub API request as it crosses the boundary, decrypted: what the judge reads. {@code path}
 * is the raw path as sent (percent-encoded, no query), {@code host} the name the client asked for
 * (api.github.com, uploads.github.com or the GHES host), {@code body} the whole request body
 * (empty, never null), {@code accept} every {@code Accept} header's value, joined by commas (the
 * media types the answer may come in: GitHub renders HTML for some).
 */
public record ApiCall(String method, String host, String path, String query, String contentType,
    byte[] body, String accept) {
  public ApiCall {
    query = query == null ? "" : query;
    contentType = contentType == null ? "" : contentType;
    body = body == null ? new byte[0] : body;
    accept = accept == null ? "" : accept;
  }

  /** A call that names no media type: GitHub answers its default, JSON with Markdown text. */
  public ApiCall(String method, String host, String path, String query, String contentType,
      byte[] body) {
    this(method, host, path, query, contentType, body, "");
  }
}
