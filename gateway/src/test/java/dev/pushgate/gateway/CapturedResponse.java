package dev.pushgate.gateway;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;

/** A response that keeps what is answered: its status and its body. */
final class CapturedResponse {
  int status = HttpServletResponse.SC_OK;
  final ByteArrayOutputStream body = new ByteArrayOutputStream();

  String text() {
    return body.toString(StandardCharsets.UTF_8);
  }

  HttpServletResponse response() {
    ServletOutputStream out = new ServletOutputStream() {
      @Override
      public boolean isReady() {
        return true;
      }

      @Override
      public void setWriteListener(WriteListener listener) {}

      @Override
      public void write(int b) {
        body.write(b);
      }
    };
    return (HttpServletResponse) Proxy.newProxyInstance(CapturedResponse.class.getClassLoader(),
        new Class<?>[] {HttpServletResponse.class}, (proxy, method, args) -> {
          switch (method.getName()) {
            case "setStatus" -> status = (Integer) args[0];
            case "isCommitted" -> {
              return false;
            }
            case "reset" -> body.reset();
            case "getOutputStream" -> {
              return out;
            }
            case "setContentType", "setHeader", "flushBuffer" -> { }
            case "hashCode" -> {
              return System.identityHashCode(proxy);
            }
            case "equals" -> {
              return proxy == args[0];
            }
            case "toString" -> {
              return "response " + status;
            }
            default -> throw new UnsupportedOperationException(method.getName());
          }
          return null;
        });
  }
}
