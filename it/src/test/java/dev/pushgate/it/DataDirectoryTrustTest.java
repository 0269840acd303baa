package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.pushgate.testkit.Cli;
import dev.pushgate.testkit.Host;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14, item 4: the appliance and every CLI command used to accept a data directory, and a
 * {@code control.sock}, that another local user owns or can write. That user swaps in a control
 * socket of their own; {@code pushgate exec}, run as root, sent it the operator's environment and
 * ran the plan it answered. Each command now refuses such a directory, socket or parent before it
 * connects, and exec sends no environment to any socket.
 */
class DataDirectoryTrustTest {
  private static final String SECRET = "aws-secret-of-the-operator-" + System.nanoTime();
  private static final int NOBODY = 65534;

  @TempDir Path tmp;

  @Test
  void noCommandTalksToAControlSocketInADataDirectoryOfAnotherUser() throws Exception {
    requireRoot();
    Path data = Files.createDirectories(tmp.resolve("theirs"));
    try (FakeControlSocket fake = new FakeControlSocket(data.resolve("control.sock"))) {
      chown(data.resolve("control.sock"), NOBODY);
      chown(data, NOBODY);
      for (List<String> command : everyCommand(data)) {
        Result r = run(tmp, command);
        assertThat(r.exit()).as(command + "\n" + r.output()).isNotZero();
        assertThat(r.output()).as(command.toString())
            .contains("pushgate: refusing the data directory " + data.toRealPath()
                + ": it belongs to uid 65534")
            .contains("Use a data directory of your own, or run pushgate as its owner")
            .doesNotContain("Exception").doesNotContain(SECRET);
      }
      assertThat(fake.connections()).as("connections to the other user's socket").isZero();
    }
  }

  @Test
  void aSocketOfAnotherUserInTheOperatorsOwnDirectoryIsRefusedToo() throws Exception {
    requireRoot();
    Path data = Files.createDirectories(tmp.resolve("mine"));
    Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
    try (FakeControlSocket fake = new FakeControlSocket(data.resolve("control.sock"))) {
      chown(data.resolve("control.sock"), NOBODY);
      Result r = run(tmp, exec(data));
      assertThat(r.exit()).as(r.output()).isEqualTo(125);
      assertThat(r.output()).contains("pushgate: "
          + data.toRealPath().resolve("control.sock") + " belongs to user nobody, not to you"
          + " (uid 0): run as nobody").doesNotContain("is it running");
      assertThat(fake.connections()).isZero();
    }
  }

  @Test
  void aDataDirectoryOrAParentOthersCanWriteIsRefusedByServeAndTheCli() throws Exception {
    Path parent = Files.createDirectories(tmp.resolve("open"));
    Path data = Files.createDirectories(parent.resolve("data"));
    Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
    Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxrwxrwx"));
    try (FakeControlSocket fake = new FakeControlSocket(data.resolve("control.sock"))) {
      Result serve = run(tmp, List.of("serve", "--data-dir", data.toString(), "--port", "0"));
      assertThat(serve.exit()).as(serve.output()).isNotZero();
      assertThat(serve.output()).contains("pushgate: refusing the directory " + parent.toRealPath()
          + " above the data directory: it can be written by other users (mode rwxrwxrwx)")
          .contains("chmod go-w " + parent.toRealPath());
      for (List<String> command : everyCommand(data)) {
        Result r = run(tmp, command);
        assertThat(r.exit()).as(command + "\n" + r.output()).isNotZero();
        assertThat(r.output()).as(command.toString())
            .contains("pushgate: refusing the directory " + parent.toRealPath());
      }
      Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwx------"));
      Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxrwx---"));
      Result runs = run(tmp, List.of("runs", "--data-dir", data.toString()));
      assertThat(runs.exit()).isNotZero();
      assertThat(runs.output()).contains("pushgate: refusing the data directory "
          + data.toRealPath() + ": it can be written by other users (mode rwxrwx---)");
      assertThat(fake.connections()).isZero();
    }
    assertThat(data.resolve("pushgate.db")).doesNotExist();
  }

  /**
   * Even to the operator's own appliance, exec sends nothing of its environment: the fake socket
   * here is trusted (the operator's own) and reads exec's whole request.
   */
  @Test
  void execSendsNoneOfItsEnvironmentToTheControlSocket() throws Exception {
    Path data = Files.createDirectories(tmp.resolve("own"));
    Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
    try (FakeControlSocket fake = new FakeControlSocket(data.resolve("control.sock"))) {
      Files.setPosixFilePermissions(data.resolve("control.sock"),
          PosixFilePermissions.fromString("rw-------"));
      Result r = run(tmp, exec(data));
      assertThat(r.exit()).as(r.output()).isEqualTo(125);
      assertThat(r.output()).contains("pushgate: the fake appliance refuses every run");
      assertThat(fake.connections()).isEqualTo(1);
      String request = fake.lastRequest();
      assertThat(request).startsWith("POST /v1/runs ").contains("\"workspaceId\"")
          .doesNotContain(SECRET).doesNotContain("AWS_SECRET_ACCESS_KEY")
          .doesNotContain("\"env\"");
    }
  }

  private static List<List<String>> everyCommand(Path data) {
    String d = data.toString();
    return List.of(exec(data), List.of("runs", "--data-dir", d),
        List.of("runs", "stop", "run_000000000000000000000000", "--data-dir", d),
        List.of("approvals", "--data-dir", d),
        List.of("approvals", "answer", "q1", "allow", "--data-dir", d),
        List.of("approvals", "watch", "--data-dir", d),
        List.of("audit", "--data-dir", d),
        List.of("forge", "create", "acme/widget", "--data-dir", d));
  }

  private static List<String> exec(Path data) {
    return List.of("exec", "--data-dir", data.toString(), "--repo", "acme/widget", "--workdir",
        data.getParent().toString(), "--", "true");
  }

  record Result(int exit, String output) {}

  /** Runs a CLI command of the jar with a secret in its environment. */
  private static Result run(Path cwd, List<String> args) throws Exception {
    Cli.Result r = Cli.of(args.toArray(String[]::new)).in(cwd)
        .env(Map.of("AWS_SECRET_ACCESS_KEY", SECRET)).run();
    return new Result(r.exit(), r.out());
  }

  private static void chown(Path p, int uid) throws IOException {
    Files.setAttribute(p, "unix:uid", uid, java.nio.file.LinkOption.NOFOLLOW_LINKS);
  }

  private static void requireRoot() throws IOException {
    Assumptions.assumeTrue(Host.isRoot(), "only root can give a directory to another user");
  }

  /**
   * A control socket that is not the appliance's: it counts connections, keeps the last request
   * and refuses every run.
   */
  private static final class FakeControlSocket implements AutoCloseable {
    private final ServerSocketChannel server;
    private final Thread thread;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicReference<String> last = new AtomicReference<>("");

    FakeControlSocket(Path path) throws IOException {
      server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
      server.bind(UnixDomainSocketAddress.of(path));
      thread = new Thread(this::serve, "fake-control-socket");
      thread.setDaemon(true);
      thread.start();
    }

    private void serve() {
      while (server.isOpen()) {
        try (SocketChannel c = server.accept()) {
          connections.incrementAndGet();
          last.set(readRequest(c));
          String body = "{\"error\": \"the fake appliance refuses every run\"}";
          c.write(ByteBuffer.wrap(("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json"
              + "\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body)
              .getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
          return; // closed
        }
      }
    }

    /** Headers, then as many body bytes as Content-Length says. */
    private static String readRequest(SocketChannel c) throws IOException {
      StringBuilder text = new StringBuilder();
      ByteBuffer buf = ByteBuffer.allocate(8192);
      int bodyLength = -1;
      int headerEnd = -1;
      while (headerEnd < 0 || text.length() < headerEnd + bodyLength) {
        buf.clear();
        if (c.read(buf) < 0) {
          break;
        }
        text.append(new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8));
        if (headerEnd < 0 && text.indexOf("\r\n\r\n") >= 0) {
          headerEnd = text.indexOf("\r\n\r\n") + 4;
          bodyLength = 0;
          for (String line : text.substring(0, headerEnd).split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
              bodyLength = Integer.parseInt(line.substring(15).strip());
            }
          }
        }
      }
      return text.toString();
    }

    int connections() {
      return connections.get();
    }

    String lastRequest() {
      return last.get();
    }

    @Override
    public void close() throws Exception {
      server.close();
      thread.join(TimeUnit.SECONDS.toMillis(10));
    }
  }
}
