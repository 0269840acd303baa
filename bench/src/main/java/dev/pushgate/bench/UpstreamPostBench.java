package dev.pushgate.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.BufferedOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URL;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.OutputStreamRequestContent;

/**
 * What one POST upstream costs the gateway's side on loopback, by client and by how its body is
 * sent: the JDK's {@code HttpURLConnection} with a body sent whole (the ref list, the cache's
 * fetch) and sent as it is written (a push), and Jetty's client both ways (tried for the push,
 * not kept). Each POST sends 3,000 bytes in two writes, as a small push's command list and pack,
 * and reads a 2,000-byte answer, over a kept connection to a local server in the same process.
 * Prints wall time and the process's CPU (client and server) per POST, for the last two of four
 * rounds. See docs/benchmarks.md, "The push upstream over Jetty's client".
 */
public final class UpstreamPostBench {
  private interface Post {
    void run() throws Exception;
  }

  private UpstreamPostBench() {}

  public static void main(String[] args) throws Exception {
    int posts = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    // The JDK's server otherwise waits for the client's delayed ACK before each answer.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    com.sun.net.httpserver.HttpServer server =
        com.sun.net.httpserver.HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    byte[] answer = new byte[2000];
    server.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(200, answer.length);
      exchange.getResponseBody().write(answer);
      exchange.close();
    });
    ExecutorService serverThreads = Executors.newFixedThreadPool(2);
    server.setExecutor(serverThreads);
    server.start();
    String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/git-receive-pack";
    URL jdkUrl = URI.create(url).toURL();
    HttpClient jetty = new HttpClient();
    jetty.start();
    byte[] body = new byte[3000];
    Post[] kinds = {
        () -> jdk(jdkUrl, body, false),
        () -> jdk(jdkUrl, body, true),
        () -> {
          InputStreamResponseListener answered = new InputStreamResponseListener();
          jetty.POST(url).body(new BytesRequestContent("application/octet-stream", body))
              .send(answered);
          answered.get(10, TimeUnit.SECONDS);
          try (InputStream in = answered.getInputStream()) {
            in.readAllBytes();
          }
        },
        () -> {
          OutputStreamRequestContent content =
              new OutputStreamRequestContent("application/octet-stream");
          InputStreamResponseListener answered = new InputStreamResponseListener();
          jetty.POST(url).body(content).send(answered);
          try (OutputStream out = new BufferedOutputStream(content.getOutputStream(), 65536)) {
            writeInTwo(out, body);
          }
          answered.get(10, TimeUnit.SECONDS);
          try (InputStream in = answered.getInputStream()) {
            in.readAllBytes();
          }
        }};
    String[] names = {"JDK, sent whole", "JDK, sent as written", "Jetty, sent whole",
        "Jetty, sent as written"};
    OperatingSystemMXBean os =
        (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    System.out.println("| client, body | wall per POST (ms) | CPU per POST (ms) |");
    System.out.println("|---|---:|---:|");
    for (int round = 0; round < 4; round++) {
      for (int k = 0; k < kinds.length; k++) {
        long cpu = os.getProcessCpuTime();
        long start = System.nanoTime();
        for (int i = 0; i < posts; i++) {
          kinds[k].run();
        }
        double wall = (System.nanoTime() - start) / 1e6 / posts;
        double used = (os.getProcessCpuTime() - cpu) / 1e6 / posts;
        if (round >= 2) {
          System.out.printf("| %s (round %d) | %.3f | %.3f |%n", names[k], round - 1, wall, used);
        }
      }
    }
    jetty.stop();
    server.stop(0);
    serverThreads.shutdownNow();
  }

  private static void jdk(URL url, byte[] body, boolean asWritten) throws Exception {
    HttpURLConnection http = (HttpURLConnection) url.openConnection();
    http.setRequestMethod("POST");
    http.setDoOutput(true);
    if (asWritten) {
      http.setChunkedStreamingMode(65536);
    }
    try (OutputStream out = http.getOutputStream()) {
      writeInTwo(out, body);
    }
    http.getResponseCode();
    try (InputStream in = http.getInputStream()) {
      in.readAllBytes();
    }
  }

  /** The command list, flushed, then the pack, as the gateway's streamed push writes them. */
  private static void writeInTwo(OutputStream out, byte[] body) throws Exception {
    out.write(body, 0, 200);
    out.flush();
    out.write(body, 200, body.length - 200);
  }
}
