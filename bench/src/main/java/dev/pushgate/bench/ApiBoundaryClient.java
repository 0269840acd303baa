package dev.pushgate.bench;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The client half of the GitHub API boundary bench (issue 16), run inside {@code pushgate exec}
 * so that it reaches the boundary exactly as a run's program does: {@code HTTPS_PROXY} (the
 * run's loopback egress proxy, which tunnels a CONNECT to api.github.com to the run's boundary),
 * the run CA from {@code SSL_CERT_FILE}, the sentinel from {@code GH_TOKEN}. The baseline sends
 * the same requests straight to the upstream the boundary forwards to (the local forge's API),
 * with a real token. One keep-alive HTTP/1.1 client per side, as {@code gh} and SDKs keep one;
 * the two sides alternate within every round (which goes first alternates too), so a change in
 * the machine's load hits both alike.
 *
 * <p>Then the CPU phase: {@code ROUNDS} rounds of the three requests on one side, then on the
 * other, each between two readings of the CPU time (user + system, {@code /proc/PID/stat}) of the
 * appliance, of the launcher ({@code pushgate exec}, this process's parent, whose loopback proxy
 * relays the tunnel) and of this client; and within the appliance's, that of its JIT compiler
 * threads, which compile whatever code got hot on whichever side is being measured (40 % of the
 * appliance's CPU over a whole bench, docs/benchmarks.md), and that of the boundary's own threads
 * ({@code pushgate-api*}: its listener and its upstream client). CPU time is what the machine's
 * load changes least: the wall time of a call on a busy machine is mostly waiting for a core.
 *
 * <p>Usage: {@code ApiBoundaryClient FORGE_API_BASE TOKEN_FILE ROUNDS WARMUP APPLIANCE_PID}.
 * Prints one line per request kind and side: {@code kind side n p50 p90 p99} (ms), then one per
 * side: {@code cpu side calls applianceMs launcherMs clientMs jitMs boundaryMs} (CPU ms of all
 * its calls; the last two are parts of the first: the JIT compiler's and the boundary's threads),
 * then
 * nothing else on stdout.
 */
public final class ApiBoundaryClient {
  private ApiBoundaryClient() {}

  /** One of the bench's requests, sent to a base URL with a credential. */
  private record Call(String kind, String method, String path, String body, int expected) {
    HttpRequest request(String base, String token, String proxyLogin) {
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
          .timeout(Duration.ofSeconds(30))
          .header("Authorization", "token " + token)
          .header("Accept", "application/vnd.github+json")
          .header("User-Agent", "pushgate-bench");
      if (proxyLogin != null) {
        b.header("Proxy-Authorization", proxyLogin);
      }
      if (body == null) {
        return b.GET().build();
      }
      return b.header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body)).build();
    }
  }

  private static final List<Call> CALLS = List.of(
      new Call("REST GET /repos/{o}/{r}", "GET", "/repos/acme/widget", null, 200),
      new Call("REST POST /repos/{o}/{r}/issues/1/comments (judged write)", "POST",
          "/repos/acme/widget/issues/1/comments", "{\"body\":\"bench comment\"}", 201),
      new Call("GraphQL query repository(owner, name)", "POST", "/graphql",
          "{\"query\":\"query { repository(owner: \\\"acme\\\", name: \\\"widget\\\")"
              + " { nameWithOwner defaultBranchRef { name } } }\"}", 200));

  public static void main(String[] args) throws Exception {
    // The launcher's proxy wants the run's login (HTTPS_PROXY=http://run:LOGIN@127.0.0.1:PORT);
    // the JDK sends a Basic Proxy-Authorization on a CONNECT only when tunnelling may use it.
    System.setProperty("jdk.http.auth.tunneling.disabledSchemes", "");
    if (args.length != 5) {
      throw new IllegalArgumentException("usage: ApiBoundaryClient FORGE_API_BASE TOKEN_FILE"
          + " ROUNDS WARMUP APPLIANCE_PID");
    }
    String directBase = args[0];
    String realToken = Files.readString(Path.of(args[1])).strip();
    int rounds = Integer.parseInt(args[2]);
    int warmup = Integer.parseInt(args[3]);
    long appliance = Long.parseLong(args[4]);
    long launcher = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
    long self = ProcessHandle.current().pid();
    String sentinel = need("GH_TOKEN");
    URI proxy = URI.create(need("HTTPS_PROXY"));

    HttpClient direct = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .proxy(HttpClient.Builder.NO_PROXY).build();
    HttpClient boundary = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .proxy(ProxySelector.of(new InetSocketAddress(proxy.getHost(), proxy.getPort())))
        .sslContext(trusting(Path.of(need("SSL_CERT_FILE")))).build();
    String boundaryBase = "https://api.github.com";
    String proxyLogin = login(proxy);

    Map<String, List<Long>> times = new LinkedHashMap<>();
    for (Call c : CALLS) {
      times.put(c.kind() + "\tdirect", new ArrayList<>());
      times.put(c.kind() + "\tboundary", new ArrayList<>());
    }
    for (int i = -warmup; i < rounds; i++) {
      for (Call c : CALLS) {
        boolean directFirst = (i & 1) == 0;
        for (int side = 0; side < 2; side++) {
          boolean isDirect = (side == 0) == directFirst;
          long ns = send(isDirect ? direct : boundary, c,
              isDirect ? c.request(directBase, realToken, null)
                  : c.request(boundaryBase, sentinel, proxyLogin));
          if (i >= 0) {
            times.get(c.kind() + (isDirect ? "\tdirect" : "\tboundary")).add(ns);
          }
        }
      }
    }
    for (Map.Entry<String, List<Long>> e : times.entrySet()) {
      Stats s = Stats.ofNanosAsMillis(e.getValue());
      System.out.println(String.format(Locale.ROOT, "%s\t%d\t%.3f\t%.3f\t%.3f", e.getKey(),
          s.count(), s.percentile(50), s.percentile(90), s.percentile(99)));
    }
    for (boolean isDirect : new boolean[] {true, false}) {
      long[] before = ticks(appliance, launcher, self);
      long jitBefore = Platform.threadTicks(appliance, JIT_THREADS);
      long boundaryBefore = Platform.threadTicks(appliance, BOUNDARY_THREADS);
      for (int i = 0; i < rounds; i++) {
        for (Call c : CALLS) {
          send(isDirect ? direct : boundary, c,
              isDirect ? c.request(directBase, realToken, null)
                  : c.request(boundaryBase, sentinel, proxyLogin));
        }
      }
      long[] after = ticks(appliance, launcher, self);
      long jitAfter = Platform.threadTicks(appliance, JIT_THREADS);
      long boundaryAfter = Platform.threadTicks(appliance, BOUNDARY_THREADS);
      System.out.println(String.format(Locale.ROOT, "cpu\t%s\t%d\t%d\t%d\t%d\t%d\t%d",
          isDirect ? "direct" : "boundary", rounds * CALLS.size(),
          (after[0] - before[0]) * TICK_MS, (after[1] - before[1]) * TICK_MS,
          (after[2] - before[2]) * TICK_MS, (jitAfter - jitBefore) * TICK_MS,
          (boundaryAfter - boundaryBefore) * TICK_MS));
    }
  }

  /** HotSpot's JIT compiler threads, as /proc names them ({@code C2 CompilerThre}). */
  private static final String[] JIT_THREADS = {"C1 Compiler", "C2 Compiler"};
  /** The boundary's listener ({@code pushgate-api-N}) and upstream client threads. */
  private static final String[] BOUNDARY_THREADS = {"pushgate-api"};

  /** Linux's clock tick for /proc/PID/stat times (USER_HZ), as on every platform Java runs on. */
  private static final long TICK_MS = 10;

  private static long[] ticks(long... pids) {
    long[] t = new long[pids.length];
    for (int i = 0; i < pids.length; i++) {
      t[i] = Platform.processTicks(pids[i]);
    }
    return t;
  }

  /** Sends one request and reads its whole answer; fails on an unexpected status. */
  private static long send(HttpClient client, Call c, HttpRequest request) throws Exception {
    long t0 = System.nanoTime();
    HttpResponse<byte[]> r = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    long ns = System.nanoTime() - t0;
    if (r.statusCode() != c.expected()) {
      // A refusal is answered fast and never forwarded: it would flatter the boundary.
      throw new IllegalStateException(c.kind() + " to " + request.uri() + ": status "
          + r.statusCode() + " (expected " + c.expected() + "): " + (r.body() == null ? ""
          : new String(r.body(), java.nio.charset.StandardCharsets.UTF_8)));
    }
    return ns;
  }

  /**
   * The proxy URL's login as a Proxy-Authorization header: the JDK sends it on the CONNECT alone,
   * never through the tunnel (an Authenticator would drop the request's own Authorization).
   */
  static String login(URI proxy) {
    String info = proxy.getRawUserInfo();
    return info == null ? null : "Basic " + java.util.Base64.getEncoder().encodeToString(
        java.net.URLDecoder.decode(info, java.nio.charset.StandardCharsets.UTF_8)
            .getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** An SSL context trusting exactly the certificates of the run's bundle. */
  static SSLContext trusting(Path bundle) throws Exception {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    try (InputStream in = Files.newInputStream(bundle)) {
      int n = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + n++, c);
      }
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(store);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }

  private static String need(String name) {
    String v = System.getenv(name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException("$" + name + " is not set: run this inside pushgate exec"
          + " on an appliance with the GitHub API boundary");
    }
    return v;
  }
}
