package dev.pushgate.appliance;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.Callback;

/** The loopback port's plain endpoints: {@code /healthz}, {@code /readyz}, {@code /metrics}. */
final class HealthEndpoints {
  private HealthEndpoints() {}

  static Handler plainText(String path, Supplier<String> body) {
    ContextHandler context = new ContextHandler(path);
    context.setAllowNullPathInContext(true);
    context.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
        org.eclipse.jetty.io.Content.Sink.write(response, true, body.get(), callback);
        return true;
      }
    });
    return context;
  }

  static Handler healthz(BooleanSupplier isReady) {
    ContextHandler context = new ContextHandler("/healthz");
    context.setAllowNullPathInContext(true);
    context.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        boolean ready = isReady.getAsBoolean();
        response.setStatus(ready ? 200 : 503);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
        response.write(true, java.nio.ByteBuffer.wrap((ready ? "ok\n" : "starting\n")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII)), callback);
        return true;
      }
    });
    return context;
  }

  /** Cheap: the checks' slow parts run in the background or under a short timeout. */
  static Handler readyz(Readiness readiness) {
    ContextHandler context = new ContextHandler("/readyz");
    context.setAllowNullPathInContext(true);
    context.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        Readiness.Answer answer = readiness.answer();
        response.setStatus(answer.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        org.eclipse.jetty.io.Content.Sink.write(response, true, answer.body(), callback);
        return true;
      }
    });
    return context;
  }
}
