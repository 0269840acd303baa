package dev.pushgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.PushRule;
import dev.pushgate.policy.PushRules;
import dev.pushgate.policy.RefPattern;
import dev.pushgate.policy.UpdateKind;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Which pushes are streamed, and an upstream that stops reading mid-pack. */
class StreamedForwardTest {
  private static final String A = "1111111111111111111111111111111111111111";
  private static final String B = "2222222222222222222222222222222222222222";
  private static final String ZERO = "0000000000000000000000000000000000000000";

  private static java.util.Optional<StreamedForward.Plan> plan(PushRules rules,
      List<String> commandLines) {
    return JudgedCommands.read(rules, commandLines).flatMap(StreamedForward::plan);
  }

  @Test
  void onlyPushesTheRulesAllowWhateverThePackHoldsAreStreamed() {
    PushRules noForceOnMain = PushRules.of(List.of(new PushRule(RefPattern.parse("refs/heads/main"),
        Set.of(UpdateKind.FORCE), Decision.DENY, "no force-push to main")));
    PushRules askForTags = PushRules.of(List.of(
        PushRule.of("refs/tags/*", Decision.ASK, "a person approves tags")));

    assertThat(plan(PushRules.ALLOW_ALL,
        List.of(A + " " + B + " refs/heads/main\0report-status atomic side-band-64k",
            ZERO + " " + B + " refs/heads/new\n")))
        .hasValueSatisfying(p -> {
          assertThat(p.atomic()).isTrue();
          assertThat(p.commands()).extracting(c -> c.getRefName())
              .containsExactly("refs/heads/main", "refs/heads/new");
        });
    // an update of main may be a force, which is denied: only the pack can tell
    assertThat(plan(noForceOnMain,
        List.of(A + " " + B + " refs/heads/main\0report-status"))).isEmpty();
    // a create cannot be a force
    assertThat(plan(noForceOnMain,
        List.of(ZERO + " " + B + " refs/heads/main\0report-status"))).isPresent();
    assertThat(plan(askForTags,
        List.of(ZERO + " " + B + " refs/tags/v1\0report-status"))).isEmpty();
    // push options follow the commands and would have to be read before the pack
    assertThat(plan(PushRules.ALLOW_ALL,
        List.of(A + " " + B + " refs/heads/x\0report-status push-options"))).isEmpty();
    for (String malformed : List.of(A + " " + B, A + " " + B + " main", "x y refs/heads/x",
        ZERO + " " + ZERO + " refs/heads/x", A + " " + B + " refs/heads/a..b")) {
      assertThat(plan(PushRules.ALLOW_ALL, List.of(malformed + "\0report-status")))
          .as(malformed).isEmpty();
    }
    assertThat(plan(PushRules.ALLOW_ALL,
        List.of(A + " " + B + " refs/heads/x", A + " " + B + " refs/heads/y\0report-status")))
        .as("capabilities on a later line").isEmpty();
    assertThat(plan(PushRules.ALLOW_ALL, List.of())).isEmpty();
  }

  /**
   * An upstream that accepts the push and then reads nothing: the client's upload must not hang
   * on it. After the stall timeout the copy is broken off, the rest of the pack still reaches
   * the gateway's own receive-pack, and the push is marked for store-and-forward.
   */
  @Test
  void anUpstreamThatStopsReadingIsBrokenOffAndThePackStillArrives() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      AtomicInteger accepted = new AtomicInteger();
      CountDownLatch testOver = new CountDownLatch(1);
      Thread acceptor = new Thread(() -> {
        try (Socket s = server.accept()) {
          accepted.incrementAndGet();
          testOver.await(); // holds the connection open and never reads
        } catch (Exception e) {
          // closed by the test
        }
      });
      acceptor.setDaemon(true);
      acceptor.start();
      RecordingUpstream upstream = new RecordingUpstream(null);
      Push push = new Push(null, null, java.util.Optional.empty(), upstream);
      push.mintAhead(Runnable::run);
      StreamedForward.Plan plan = plan(PushRules.ALLOW_ALL,
          List.of(ZERO + " " + B + " refs/heads/x\0report-status")).orElseThrow();
      String url = "http://127.0.0.1:" + server.getLocalPort() + "/acme/widget.git";
      // a pack header announcing one object, then a blob of 64 MiB of stored (raw) deflate
      byte[] pack = hugeStoredBlobPack(64 << 20);

      try (GatewayThreads threads = new GatewayThreads(); push;
          StreamedForward streamed = StreamedForward.start(new Forwarder(5), url,
              () -> push.writeToken(false), plan, Duration.ofSeconds(1), threads)) {
        // handed over as the cache's pack parser hands it, in its reads of 8 KiB; a handover
        // that waited on the broken upstream (1 s a read) would take hours: the deadline ends it
        int objectBytes = pack.length - 20;
        CompletableFuture<Void> handover = CompletableFuture.runAsync(() -> {
          try {
            for (int at = 0; at < objectBytes; at += 8192) {
              streamed.objects(pack, at, Math.min(8192, objectBytes - at));
            }
            streamed.objectsEnd(Arrays.copyOfRange(pack, objectBytes, pack.length));
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
        handover.get(60, TimeUnit.SECONDS);
        assertThat(streamed.ready(plan.commands())).isFalse();
        assertThat(streamed.notReadyBecause(plan.commands())).startsWith("upstream broke off");
        // the hook asks finish without a ready() of its own: a copy that broke off (even between
        // two questions) is answered "not streamed", so the stored push is forwarded instead
        assertThat(streamed.finish(plan.commands(), line -> { })).isEmpty();
      }
      assertThat(accepted).hasValue(1);
      assertThat(upstream.leases).singleElement().satisfies(lease ->
          assertThat(lease.closes).as("revoked, as nobody took it").hasValue(1));
      testOver.countDown();
    }
  }

  private static byte[] hugeStoredBlobPack(int size) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(size + 1024);
    out.writeBytes(new byte[] {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 1});
    long s = size;
    int c = (3 << 4) | (int) (s & 0x0f);
    s >>>= 4;
    while (s != 0) {
      out.write(c | 0x80);
      c = (int) (s & 0x7f);
      s >>>= 7;
    }
    out.write(c);
    java.util.zip.Deflater d = new java.util.zip.Deflater(java.util.zip.Deflater.NO_COMPRESSION);
    d.setInput(new byte[size]);
    d.finish();
    byte[] buf = new byte[1 << 16];
    while (!d.finished()) {
      out.write(buf, 0, d.deflate(buf));
    }
    d.end();
    out.writeBytes(new byte[20]);
    return out.toByteArray();
  }
}
