package dev.pushgate.gateway;

import dev.pushgate.http.HttpServer;
import dev.pushgate.types.RepoSlug;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jgit.http.server.GitServlet;
import org.eclipse.jgit.transport.PreReceiveHook;
import org.eclipse.jgit.transport.ReceivePack;
import org.eclipse.jgit.transport.resolver.FileResolver;

/**
 * An upstream for tests: the bare repositories under a directory, served over smart HTTP on
 * 127.0.0.1 by JGit's own servlet, as the local forge and GitHub serve them. Every request is
 * recorded ({@code "METHOD path?query"}, and whether it carried credentials).
 */
final class HttpUpstream implements AutoCloseable {
  /** One request upstream saw. */
  record Seen(String request, boolean authorized) {}

  private final Path root;
  private final Server server = new Server();
  final List<Seen> requests = new CopyOnWriteArrayList<>();
  /** Runs in upstream's receive-pack before it updates refs, when set. */
  volatile PreReceiveHook hook;
  /** Rewrites the body of upload-pack's answers to a fetch, when set: a faulty upstream. */
  volatile UnaryOperator<byte[]> uploadPackAnswer;
  /**
   * When set, upstream's receive-pack dies once it has read this many bytes of a push: it fails
   * and drops the connection without an answer, as an upstream that crashes mid-pack.
   */
  volatile long receivePackDiesAfter = -1;
  /** Every byte upstream's receive-pack has read of the pushes it was sent, as it read them. */
  final ByteArrayOutputStream receivePackRead = new ByteArrayOutputStream();
  /** How many pushes upstream's receive-pack has ended (answered or failed). */
  final java.util.concurrent.atomic.AtomicInteger receivePacksEnded =
      new java.util.concurrent.atomic.AtomicInteger();
  /**
   * When set, receive-pack reads a pack no further than its trailer and then applies it, as git's
   * does ({@code index-pack --stdin} stops at the trailer): bytes after it, or the connection's
   * end, are never looked at. JGit's own, by default, reads on to the request's end first.
   */
  volatile boolean stopsReadingAtTheTrailer;
  /** When set, upload-pack's answers to a fetch are sent in two parts ({@link Stall}). */
  volatile Stall stall;

  /**
   * An answer sent up to {@code firstBytes}, then held until {@code release} opens, then sent
   * whole, or the connection dropped instead ({@code dies}): an upstream midway through a pack.
   * {@code held} opens once the first part has left.
   */
  record Stall(int firstBytes, java.util.concurrent.CountDownLatch held,
      java.util.concurrent.CountDownLatch release, boolean dies) {}

  /** How {@link #requests} marks the gateway's read of the ref list (a v2 {@code ls-refs}). */
  static final String LS_REFS = "(ls-refs)";

  private static boolean isLsRefs(HttpServletRequest http) {
    return http.getRequestURI().endsWith("/git-upload-pack")
        && "version=2".equals(http.getHeader("Git-Protocol"));
  }

  HttpUpstream(Path root) throws Exception {
    this.root = root;
    HttpServer.tcp(server, "127.0.0.1", 0, null);
    GitServlet git = new GitServlet();
    git.setRepositoryResolver(new FileResolver<>(root.toFile(), true));
    // Protocol v2 when asked for, as git's http-backend: the ref list is its ls-refs.
    git.setUploadPackFactory((HttpServletRequest req, org.eclipse.jgit.lib.Repository db) -> {
      org.eclipse.jgit.transport.UploadPack up = new org.eclipse.jgit.transport.UploadPack(db);
      String protocol = req.getHeader("Git-Protocol");
      if (protocol != null) {
        up.setExtraParameters(java.util.List.of(protocol));
      }
      return up;
    });
    // Receive-pack's own configuration (receive.denyDeletes, ...) decides, as with git's
    // http-backend; JGit's default factory would refuse anonymous pushes outright.
    git.setReceivePackFactory((HttpServletRequest req, org.eclipse.jgit.lib.Repository db) -> {
      ReceivePack rp = new ReceivePack(db);
      rp.setAllowPushOptions(true);
      rp.setExpectDataAfterPackFooter(stopsReadingAtTheTrailer);
      if (hook != null) {
        rp.setPreReceiveHook(hook);
      }
      return rp;
    });
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    Filter recorder = (req, rsp, chain) -> {
      HttpServletRequest http = (HttpServletRequest) req;
      boolean lsRefs = isLsRefs(http);
      requests.add(new Seen(http.getMethod() + " " + http.getRequestURI()
          + (http.getQueryString() == null ? "" : "?" + http.getQueryString())
          + (lsRefs ? " " + LS_REFS : ""), http.getHeader("Authorization") != null));
      if (lsRefs) {
        chain.doFilter(req, rsp); // the ref list, never a fetch's answer
        return;
      }
      long diesAfter = receivePackDiesAfter;
      if (diesAfter >= 0 && http.getRequestURI().endsWith("/git-receive-pack")) {
        http.getInputStream().readNBytes((int) Math.min(Integer.MAX_VALUE, diesAfter));
        throw new org.eclipse.jetty.io.EofException("upstream died mid-pack (test)");
      }
      UnaryOperator<byte[]> rewrite = uploadPackAnswer;
      Stall stalled = stall;
      if (stalled != null && http.getRequestURI().endsWith("/git-upload-pack")) {
        Captured answer = new Captured((HttpServletResponse) rsp);
        chain.doFilter(req, answer);
        byte[] body = answer.body.toByteArray();
        int first = Math.min(stalled.firstBytes(), body.length / 2);
        rsp.getOutputStream().write(body, 0, first);
        rsp.getOutputStream().flush();
        stalled.held().countDown();
        try {
          stalled.release().await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        if (stalled.dies()) {
          throw new org.eclipse.jetty.io.EofException("upstream died mid-pack (test)");
        }
        rsp.getOutputStream().write(body, first, body.length - first);
        return;
      }
      if (http.getRequestURI().endsWith("/git-receive-pack")) {
        try {
          chain.doFilter(recordingBody(http), rsp);
        } finally {
          receivePacksEnded.incrementAndGet();
        }
        return;
      }
      if (rewrite == null || !http.getRequestURI().endsWith("/git-upload-pack")) {
        chain.doFilter(req, rsp);
        return;
      }
      Captured answer = new Captured((HttpServletResponse) rsp);
      chain.doFilter(req, answer);
      byte[] body = rewrite.apply(answer.body.toByteArray());
      rsp.setContentLength(body.length);
      rsp.getOutputStream().write(body);
    };
    context.addFilter(new FilterHolder(recorder), "/*",
        EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
    context.addServlet(new ServletHolder(git), "/*");
    server.setHandler(context);
    server.start();
  }

  /** {@code req}, whose body copies into {@link #receivePackRead} what is read of it. */
  private HttpServletRequest recordingBody(HttpServletRequest req) throws java.io.IOException {
    ServletInputStream in = req.getInputStream();
    ServletInputStream recorded = new ServletInputStream() {
      @Override
      public int read() throws java.io.IOException {
        int b = in.read();
        if (b >= 0) {
          receivePackRead.write(b);
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws java.io.IOException {
        int n = in.read(b, off, len);
        if (n > 0) {
          receivePackRead.write(b, off, n);
        }
        return n;
      }

      @Override
      public boolean isFinished() {
        return in.isFinished();
      }

      @Override
      public boolean isReady() {
        return in.isReady();
      }

      @Override
      public void setReadListener(jakarta.servlet.ReadListener listener) {
        in.setReadListener(listener);
      }
    };
    return new jakarta.servlet.http.HttpServletRequestWrapper(req) {
      @Override
      public ServletInputStream getInputStream() {
        return recorded;
      }
    };
  }

  /** Keeps what the servlet writes, headers aside, for {@link #uploadPackAnswer}. */
  private static final class Captured extends HttpServletResponseWrapper {
    final ByteArrayOutputStream body = new ByteArrayOutputStream();

    Captured(HttpServletResponse rsp) {
      super(rsp);
    }

    @Override
    public void setContentLength(int len) {}

    @Override
    public void setContentLengthLong(long len) {}

    @Override
    public ServletOutputStream getOutputStream() {
      return new ServletOutputStream() {
        @Override
        public void write(int b) {
          body.write(b);
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {}
      };
    }
  }

  /** The smart-HTTP URL of the bare repository at {@code dir}, which lies under the root. */
  String url(Path dir) {
    int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    return "http://127.0.0.1:" + port + "/" + root.relativize(dir).toString().replace('\\', '/');
  }

  /**
   * Upstream access that finds each repository at {@code <root>/<name>.git} here, recording the
   * write tokens it leases; a repository with nothing there cannot be read.
   */
  RecordingUpstream access() {
    return new RecordingUpstream(null) {
      @Override
      public String remoteUrl(RepoSlug repo) {
        return url(root.resolve(repo.name() + ".git"));
      }
    };
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }
}
