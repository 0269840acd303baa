package dev.pushgate.gateway.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.Locale;
import org.eclipse.jetty.io.Content;

/**
 * Sends an allowed call, made ready, upstream and copies GitHub's answer back as it came, minus
 * hop-by-hop headers and the tokens of download links ({@link DownloadLinks}). Its write token is
 * revoked before the answer's end reaches the run, so no call of the run's races it.
 */
record Forward(String runId, HttpClient client) {
  void send(ApiExchange call, CallDecision.Allowed allowed) {
    try {
      HttpResponse<InputStream> answer =
          client.send(call.upstream(), HttpResponse.BodyHandlers.ofInputStream());
      call.response.setStatus(answer.statusCode());
      String upstreamHost = call.upstream().uri().getHost();
      String answerType = answer.headers().firstValue("Content-Type").orElse(null);
      boolean rewritten = DownloadLinks.rewrites(call.call().path(), answerType);
      answer.headers().map().forEach((name, values) -> {
        String lower = name.toLowerCase(Locale.ROOT);
        if (!ApiBoundary.HOP_BY_HOP.contains(lower)
            || lower.equals("content-length") && !rewritten) {
          for (String v : values) {
            // A download link's token is a credential of its own: not for the run.
            call.response.getHeaders().add(name, lower.equals("location")
                ? DownloadLinks.location(v, upstreamHost) : v);
          }
        }
      });
      try (InputStream in = DownloadLinks.body(call.call().path(), answerType, answer.body());
          OutputStream out = Content.Sink.asOutputStream(call.response)) {
        in.transferTo(out);
        call.revokeToken();
      }
      call.callback.succeeded();
      // Every call is in the audit already (docs/github-api.md#audit): a line per call is
      // debug, as the log's layout and redaction cost the boundary a tenth of its CPU.
      ApiBoundary.LOG.debug("run {}: {} {}{} {} upstream {}", runId, call.method,
          call.call().host(), call.path, allowed.audited(), answer.statusCode());
    } catch (IOException e) {
      ApiBoundary.LOG.warn("run {}: GitHub did not answer {} {}: {}", runId, call.method,
          call.path, e.getClass().getSimpleName());
      if (!call.response.isCommitted()) {
        GitHubError.write(call.response, call.callback, 502, "GitHub did not answer pushgate");
      } else {
        call.callback.failed(e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      call.callback.failed(e);
    }
  }
}
