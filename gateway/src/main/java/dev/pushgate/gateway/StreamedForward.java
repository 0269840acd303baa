package dev.pushgate.gateway;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.PushRules;
import dev.pushgate.policy.UpdateKind;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.ReceiveCommand;

/**
 * A large push copied upstream while the gateway receives it, all but the pack's 20-byte SHA-1
 * trailer (see {@code docs/streaming-forward.md}). Without the trailer upstream cannot finish the
 * pack and applies nothing. Once the push has been judged and audited, {@link #finish} sends the
 * trailer and upstream's verdict comes back as from {@link Forwarder}; otherwise {@link #abort}
 * breaks the connection and upstream discards what it got.
 *
 * <p>Only a push whose every command the rules allow whatever its pack holds is streamed, so
 * nothing the rules deny is ever sent upstream, even incomplete. What is still decided by the
 * pack (its validity, the objects it claims, whether it changes workflows and so needs another
 * token) is decided before the trailer goes; when it goes another way, the push falls back to
 * store-and-forward.
 */
final class StreamedForward implements AutoCloseable {
  /** Smaller pushes are stored, then forwarded: there is little to overlap. */
  static final long MIN_STREAMED_BYTES = 1 << 20;

  /**
   * Breaks off an upstream that stops reading: a write to a socket has no timeout of its own, and
   * the client's upload waits on it.
   */
  private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(
      r -> {
        Thread t = new Thread(r, "pushgate-stream-watchdog");
        t.setDaemon(true);
        return t;
      });

  /** The commands of a push that may be streamed, and whether the client asked for atomic. */
  record Plan(List<ReceiveCommand> commands, boolean atomic) {}

  private final Forwarder forwarder;
  private final String remoteUrl;
  private final HttpURLConnection http;
  private final OutputStream body;
  private final PackBoundary boundary;
  private final List<ReceiveCommand> sent;
  private WriteTokenLease lease;
  private IOException broken;
  private boolean ended;
  /** When the write under way began (nanoTime), or 0 when none is. */
  private volatile long writingSince;
  private ScheduledFuture<?> watch;

  private StreamedForward(Forwarder forwarder, String remoteUrl, HttpURLConnection http,
      OutputStream body, PackBoundary boundary, List<ReceiveCommand> sent, WriteTokenLease lease) {
    this.forwarder = forwarder;
    this.remoteUrl = remoteUrl;
    this.http = http;
    this.body = body;
    this.boundary = boundary;
    this.sent = sent;
    this.lease = lease;
  }

  /**
   * The plan for a push, when it may be streamed: its command lines (as sent, the first with its
   * capabilities) are well formed, it sends no push options (they follow the commands, and would
   * have to be read first), and the rules allow every command whatever the pack holds.
   */
  static Optional<Plan> plan(PushRules rules, List<String> commandLines) {
    List<ReceiveCommand> commands = new ArrayList<>();
    Set<String> capabilities = new HashSet<>();
    for (int n = 0; n < commandLines.size(); n++) {
      String line = commandLines.get(n);
      if (line.endsWith("\n")) {
        line = line.substring(0, line.length() - 1);
      }
      int nul = line.indexOf('\0');
      if (nul >= 0) {
        if (n > 0) {
          return Optional.empty();
        }
        capabilities.addAll(Arrays.asList(line.substring(nul + 1).split(" ")));
        line = line.substring(0, nul);
      }
      String[] parts = line.split(" ", -1);
      if (parts.length != 3 || !ObjectId.isId(parts[0]) || !ObjectId.isId(parts[1])
          || !parts[2].startsWith("refs/") || !Repository.isValidRefName(parts[2])) {
        return Optional.empty();
      }
      ReceiveCommand cmd = new ReceiveCommand(ObjectId.fromString(parts[0]),
          ObjectId.fromString(parts[1]), parts[2]);
      if (cmd.getOldId().equals(cmd.getNewId()) || !allowedWhateverThePack(rules, cmd)) {
        return Optional.empty();
      }
      commands.add(cmd);
    }
    if (commands.isEmpty() || capabilities.contains("push-options")) {
      return Optional.empty();
    }
    return Optional.of(new Plan(List.copyOf(commands), capabilities.contains("atomic")));
  }

  private static boolean allowedWhateverThePack(PushRules rules, ReceiveCommand cmd) {
    String ref = cmd.getRefName();
    List<UpdateKind> kinds = switch (cmd.getType()) {
      case CREATE -> List.of(UpdateKind.CREATE);
      case DELETE -> List.of(UpdateKind.DELETE);
      default -> List.of(UpdateKind.UPDATE, UpdateKind.FORCE);
    };
    return kinds.stream().allMatch(k -> rules.judge(ref, k).decision() == Decision.ALLOW);
  }

  /**
   * Opens the upstream push and sends its commands. The lease is this forward's from here on:
   * {@link #takeLease} hands it on, {@link #close} revokes it if nobody took it.
   */
  static StreamedForward start(Forwarder forwarder, String remoteUrl, WriteTokenLease lease,
      Plan plan, long maxObjectBytes, Duration stallTimeout) throws IOException {
    HttpURLConnection http = null;
    try {
      http = forwarder.open(remoteUrl, lease.token());
      OutputStream body = http.getOutputStream();
      Forwarder.writeCommands(body, plan.commands(), plan.atomic(), List.of());
      StreamedForward streamed = new StreamedForward(forwarder, remoteUrl, http, body,
          new PackBoundary(maxObjectBytes), plan.commands(), lease);
      streamed.watch(stallTimeout);
      return streamed;
    } catch (IOException | URISyntaxException | RuntimeException e) {
      if (http != null) {
        http.disconnect();
      }
      lease.close();
      throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
    }
  }

  private void watch(Duration stallTimeout) {
    long limit = stallTimeout.toNanos();
    watch = WATCHDOG.scheduleWithFixedDelay(() -> {
      long since = writingSince;
      if (since != 0 && System.nanoTime() - since > limit) {
        http.disconnect(); // the blocked write fails, and the push is stored, then forwarded
      }
    }, 1, 1, TimeUnit.SECONDS);
  }

  /** {@code pack} as read by the gateway's receive-pack, each byte also copied upstream. */
  InputStream tee(InputStream pack) {
    return new FilterInputStream(pack) {
      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (n > 0) {
          copy(b, off, n);
        }
        return n;
      }
    };
  }

  private synchronized void copy(byte[] b, int off, int n) {
    int forwardable = boundary.feed(b, off, n);
    if (broken != null || ended || forwardable == 0) {
      return;
    }
    writingSince = System.nanoTime();
    try {
      body.write(b, off, forwardable);
    } catch (IOException e) {
      broken = e; // upstream went away: the push falls back to store-and-forward
    } finally {
      writingSince = 0;
    }
  }

  /**
   * Whether upstream has the whole pack but its trailer, and was sent exactly {@code judged}: then
   * {@link #finish} may complete it.
   */
  synchronized boolean ready(List<ReceiveCommand> judged) {
    return !ended && broken == null && boundary.done() && same(judged);
  }

  /** Why {@link #ready} is false, for the log. */
  synchronized String notReadyBecause(List<ReceiveCommand> judged) {
    if (ended) {
      return "ended";
    }
    if (broken != null) {
      return "upstream broke off: " + Forwarder.oneLine(broken.getMessage());
    }
    if (!boundary.done()) {
      return boundary.failed() ? boundary.failure() : "the pack was not read to its end";
    }
    return same(judged) ? "ready" : "not every command was allowed";
  }

  private boolean same(List<ReceiveCommand> judged) {
    if (judged.size() != sent.size()) {
      return false;
    }
    for (int i = 0; i < sent.size(); i++) {
      ReceiveCommand a = sent.get(i);
      ReceiveCommand b = judged.get(i);
      if (!a.getRefName().equals(b.getRefName()) || !a.getOldId().equals(b.getOldId())
          || !a.getNewId().equals(b.getNewId())) {
        return false;
      }
    }
    return true;
  }

  /** Sends the trailer, so that upstream applies the push, and returns its verdict per command. */
  synchronized Map<ReceiveCommand, Forwarder.Outcome> finish(List<ReceiveCommand> judged,
      Consumer<String> messages) {
    if (!ready(judged)) {
      throw new IllegalStateException("not ready: " + notReadyBecause(judged));
    }
    ended = true;
    writingSince = System.nanoTime();
    try {
      body.write(boundary.trailer());
      body.close();
    } catch (IOException e) {
      http.disconnect();
      return forwarder.answerFailed(judged, remoteUrl, e);
    } finally {
      writingSince = 0;
      watch.cancel(false);
    }
    return forwarder.answer(http, remoteUrl, judged, messages);
  }

  /** Breaks the upstream push off before its trailer: upstream applies nothing. */
  synchronized void abort() {
    if (!ended) {
      ended = true;
      http.disconnect();
    }
  }

  /** The write token, for the caller to use and revoke. */
  synchronized WriteTokenLease takeLease() {
    WriteTokenLease taken = lease;
    lease = null;
    return taken;
  }

  @Override
  public synchronized void close() {
    watch.cancel(false);
    abort();
    boundary.release();
    if (lease != null) {
      lease.close();
      lease = null;
    }
  }
}
