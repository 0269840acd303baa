package dev.pushgate.appliance;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.Callback;

/** The loopback port's plain endpoints: {@code /healthz}, {@code /readyz}, {@code /metrics}. */
final class HealthEndpoints {
  /** One answer of an endpoint; {@code noStore}: a cache must not keep it. */
  private record Answer(int status, String contentType, String body, boolean noStore) {
    Answer(int status, String contentType, String body) {
      this(status, contentType, body, false);
    }
  }

  private HealthEndpoints() {}

  static Handler plainText(String path, Supplier<String> body) {
    return at(path, () -> new Answer(200, "text/plain; version=0.0.4; charset=utf-8", body.get()));
  }

  static Handler healthz(BooleanSupplier isReady) {
    return at("/healthz", () -> isReady.getAsBoolean() ? new Answer(200, "text/plain", "ok\n")
        : new Answer(503, "text/plain", "starting\n"));
  }

  /** Cheap: the checks' slow parts run in the background or under a short timeout. */
  static Handler readyz(Readiness readiness) {
    return at("/readyz", () -> {
      Readiness.Answer answer = readiness.answer();
      return new Answer(answer.status(), "application/json", answer.body(), true);
    });
  }

  /** {@code path}, answered with what {@code answer} says at the time of each request. */
  private static Handler at(String path, Supplier<Answer> answer) {
    ContextHandler context = new ContextHandler(path);
    context.setAllowNullPathInContext(true);
    context.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        Answer a = answer.get();
        response.setStatus(a.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, a.contentType());
        if (a.noStore()) {
          response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        }
        Content.Sink.write(response, true, a.body(), callback);
        return true;
      }
    });
    return context;
  }
}
