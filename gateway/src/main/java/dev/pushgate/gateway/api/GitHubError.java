package dev.pushgate.gateway.api;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** A refusal as GitHub writes its errors, so that gh and the SDKs print {@code message}. */
final class GitHubError {
  private GitHubError() {}

  static void write(Response response, Callback callback, int status, String message) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json; charset=utf-8");
    String body = "{\"message\":" + quote(message) + ",\"documentation_url\":"
        + quote(ApiBoundary.DOCS) + "}\n";
    Content.Sink.write(response, true, body, callback);
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
