package dev.pushgate.gateway;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jgit.transport.ReceiveCommand;

/**
 * A push copied upstream while the gateway receives it, all but the pack's 20-byte SHA-1 trailer
 * (see {@code docs/streaming-forward.md}). Without the trailer upstream cannot finish the pack
 * and applies nothing. Once the push has been judged and audited, {@link #finish} sends the
 * trailer and upstream's verdict comes back as from {@link Forwarder}; otherwise {@link #abort}
 * breaks the connection and upstream discards what it got.
 *
 * <p>Only a push whose every command the rules allow whatever its pack holds is streamed, so
 * nothing the rules deny is ever sent upstream, even incomplete. What is still decided by the
 * pack (its validity, the objects it claims, whether it changes workflows and so needs another
 * token) is decided before the trailer goes; when it goes another way, the push falls back to
 * store-and-forward.
 *
 * <p>The pack comes from the cache's pack parser ({@link CachePackParser}, as a {@link PackCopy}):
 * each byte as the parser consumes it, except the trailer, which the parser reads apart and
 * hands over only once it has read every object, checked the pack's checksum and seen the
 * request end. So the parser, which reads every object anyway, tells where the objects end; a
 * second pass over the stream did that before, inflating each object a second time.
 *
 * <p>A copier thread waits for the push's write token, opens the upstream request and sends
 * what the gateway's receive-pack has read, so that neither the mint nor upstream slows the
 * client's upload; at most {@link #MAX_QUEUED_BYTES} wait for it.
 */
final class StreamedForward implements PackCopy, AutoCloseable {
  static final int MAX_QUEUED_BYTES = 8 << 20;
  private static final int EAGER_FLUSH_BYTES = 256 << 10;
  private static final int BLOCK_BYTES = 64 << 10;
  private static final byte[] END = new byte[0];
  /** The commands of a push that may be streamed, and whether the client asked for atomic. */
  record Plan(List<ReceiveCommand> commands, boolean atomic) {}

  /** The push's write token, once minted; the push owns it and revokes it. */
  interface Token {
    WriteTokenLease take() throws UpstreamException;
  }

  private final Forwarder forwarder;
  private final String remoteUrl;
  private final Token token;
  private final Plan plan;
  /** How many of the pack's objects no command reaches: none for a pack real git sends. */
  private int unreached;
  private final LinkedBlockingQueue<byte[]> queue = new LinkedBlockingQueue<>();
  private final Semaphore room = new Semaphore(MAX_QUEUED_BYTES);
  private final CountDownLatch copied = new CountDownLatch(1);
  private final ScheduledFuture<?> watch;
  /** Set by the copier; read by the request thread once {@link #copied} is down. */
  private volatile HttpURLConnection http;
  private volatile OutputStream body;
  private volatile Exception broken;
  private volatile boolean aborted;
  /** When the write under way began (nanoTime), or 0 when none is. */
  private volatile long writingSince;
  /**
   * What the request thread read and has not handed to the copier yet; allocated at the first
   * bytes, kept after a part of it was handed over (a copy goes), replaced once handed over full.
   */
  private byte[] block;
  private int blockFill;
  /** The pack's trailer, once the parser has read the whole pack; on the request thread. */
  private byte[] trailer;
  private boolean ended;

  private StreamedForward(Forwarder forwarder, String remoteUrl, Token token, Plan plan,
      Duration stallTimeout, GatewayThreads threads) {
    this.forwarder = forwarder;
    this.remoteUrl = remoteUrl;
    this.token = token;
    this.plan = plan;
    long limit = stallTimeout.toNanos();
    // Breaks off an upstream that stops reading: a write to a socket has no timeout of its own,
    // and the push waits on it. nanoTime, as ClientReadTimeout: a real stall, whatever the clock.
    this.watch = threads.ticker().scheduleWithFixedDelay(() -> {
      long since = writingSince;
      HttpURLConnection h = http;
      if (since != 0 && h != null && System.nanoTime() - since > limit) {
        h.disconnect(); // the blocked write fails, and the push is stored, then forwarded
      }
    }, 1, 1, TimeUnit.SECONDS);
  }

  /**
   * The plan for a push, when it may be streamed: its command lines (as sent, the first with its
   * capabilities) are well formed, it sends no push options (they follow the commands, and would
   * have to be read first), and the rules allow every command whatever the pack holds.
   */
  static Optional<Plan> plan(JudgedCommands judged) {
    CommandList list = judged.list();
    if (list.capabilities().contains("push-options") || !judged.everyCommandAllowed()) {
      return Optional.empty();
    }
    if (list.commands().stream().allMatch(CommandList.Command::deletes)) {
      return Optional.empty(); // deletes alone send no pack: nothing to stream
    }
    List<ReceiveCommand> commands = new ArrayList<>();
    for (CommandList.Command c : list.commands()) {
      commands.add(new ReceiveCommand(c.oldId(), c.newId(), c.ref()));
    }
    return Optional.of(new Plan(List.copyOf(commands), list.capabilities().contains("atomic")));
  }

  /**
   * Starts the copy upstream on one of {@code threads}' copiers, which takes {@code token} when
   * the mint is done. The token stays the push's: the push revokes it.
   */
  static StreamedForward start(Forwarder forwarder, String remoteUrl, Token token,
      Plan plan, Duration stallTimeout, GatewayThreads threads) {
    StreamedForward streamed = new StreamedForward(forwarder, remoteUrl, token, plan,
        stallTimeout, threads);
    threads.copiers().execute(streamed::copy);
    return streamed;
  }

  /** Queues the next bytes of the pack for upstream, in blocks. */
  @Override
  public void objects(byte[] b, int off, int n) throws IOException {
    for (int done = 0; done < n; ) {
      if (block == null) {
        block = new byte[BLOCK_BYTES];
      }
      int len = Math.min(n - done, block.length - blockFill);
      System.arraycopy(b, off + done, block, blockFill, len);
      blockFill += len;
      done += len;
      if (blockFill == block.length) {
        submitBlock();
      }
    }
  }

  /**
   * Queues bytes of the pack read ahead of the parser ({@link EarlyPack}) and hands them to the
   * copier at once, not once a block is full: upstream is to have them while the cache fetches.
   */
  void objectsNow(byte[] b, int off, int n) throws IOException {
    objects(b, off, n);
    submitBlock();
  }

  /** The last objects go at once; the trailer waits for {@link #finish}. */
  @Override
  public void objectsEnd(byte[] packTrailer) throws IOException {
    submitBlock();
    trailer = packTrailer.clone();
  }

  /**
   * Hands what was read so far to the copier, in blocks rather than read by read: a hand-over
   * wakes the copier, and 100 MiB in reads of 8 KiB would wake it 12,800 times. A small push
   * hands over a copy of the little it read and allocates no second block.
   */
  private void submitBlock() throws IOException {
    if (blockFill == 0) {
      return;
    }
    int len = blockFill;
    byte[] handed = len == block.length ? block : Arrays.copyOf(block, len);
    if (handed == block) {
      block = null; // the copier's now
    }
    blockFill = 0;
    if (broken != null || aborted) {
      return;
    }
    try {
      // Waits while the copier is behind: the client uploads as fast as upstream takes it.
      while (!room.tryAcquire(len, 1, TimeUnit.SECONDS)) {
        if (broken != null || aborted) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while copying a push upstream");
    }
    queue.add(handed);
  }

  /** The copier: waits for the token, opens the request, sends what is queued until the end. */
  private void copy() {
    try {
      WriteTokenLease taken = token.take();
      HttpURLConnection h = forwarder.open(remoteUrl, taken.token());
      http = h;
      if (aborted) {
        return;
      }
      OutputStream out = h.getOutputStream();
      body = out;
      watched(() -> Forwarder.writeCommands(out, plan.commands(), plan.atomic(), List.of()));
      long sent = 0;
      for (byte[] chunk = queue.take(); chunk != END; chunk = queue.take()) {
        room.release(chunk.length);
        byte[] c = chunk;
        watched(() -> out.write(c));
        sent += c.length;
        if (sent < EAGER_FLUSH_BYTES && queue.isEmpty()) {
          // A small push: upstream starts on what it has while the client sends the rest.
          // A large one goes in full chunks, cheaper for both sides.
          watched(out::flush);
        }
      }
    } catch (Exception e) {
      broken = e; // the push falls back to store-and-forward
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    } finally {
      queue.clear();
      room.release(MAX_QUEUED_BYTES);
      copied.countDown();
    }
  }

  private interface Write {
    void run() throws IOException;
  }

  private void watched(Write w) throws IOException {
    writingSince = System.nanoTime();
    try {
      w.run();
    } finally {
      writingSince = 0;
    }
  }

  /**
   * Whether upstream can have the whole pack but its trailer, and was sent exactly {@code
   * judged}: then {@link #finish} may complete it.
   */
  synchronized boolean ready(List<ReceiveCommand> judged) {
    return !ended && broken == null && trailer != null && unreached == 0 && same(judged);
  }

  /**
   * The pack carries {@code count} objects beyond what its commands bring ({@link
   * PackReachCheck}): no content rule judged them, and upstream would keep them, so this copy is
   * never completed.
   */
  synchronized void carriesUnreached(int count) {
    unreached = count;
  }

  /** Why {@link #ready} is false, for the log. */
  synchronized String notReadyBecause(List<ReceiveCommand> judged) {
    if (broken != null) {
      return "upstream broke off: " + Forwarder.oneLine(String.valueOf(broken.getMessage()));
    }
    if (ended) {
      return "ended";
    }
    if (trailer == null) {
      return "the pack was not read to its end";
    }
    if (unreached > 0) {
      return "the pack carries " + unreached + " object" + (unreached == 1 ? "" : "s")
          + " beyond what the pushed refs bring; the stored push sends only those";
    }
    return same(judged) ? "ready" : "not every command was allowed";
  }

  private boolean same(List<ReceiveCommand> judged) {
    List<ReceiveCommand> sent = plan.commands();
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

  /**
   * Waits until upstream has everything but the trailer, sends the trailer, so that upstream
   * applies the push, and returns its verdict per command. Empty when the copy is not {@link
   * #ready} (upstream may break off at any moment while the pack is still being sent) or broke
   * off before the trailer: nothing was applied upstream, and the push is stored, then forwarded.
   */
  synchronized Optional<Map<ReceiveCommand, Forwarder.Outcome>> finish(
      List<ReceiveCommand> judged, Consumer<String> messages) throws InterruptedException {
    if (!ready(judged)) {
      return Optional.empty();
    }
    ended = true;
    queue.add(END);
    copied.await();
    if (broken != null) {
      return Optional.empty();
    }
    HttpURLConnection h = http;
    try {
      OutputStream out = body;
      byte[] last = trailer;
      watched(() -> {
        out.write(last);
        out.close();
      });
    } catch (IOException e) {
      return Optional.of(forwarder.answerFailed(h, judged, remoteUrl, e));
    } finally {
      watch.cancel(false);
    }
    return Optional.of(forwarder.answer(h, remoteUrl, judged, messages));
  }

  /** Breaks the upstream push off before its trailer, so that upstream applies nothing. */
  synchronized void abort() throws InterruptedException {
    if (!ended) {
      ended = true;
      aborted = true;
      queue.add(END);
      HttpURLConnection h = http;
      if (h != null) {
        h.disconnect();
      }
      copied.await();
      h = http;
      if (h != null) {
        h.disconnect();
      }
    }
  }

  @Override
  public synchronized void close() throws InterruptedException {
    try {
      abort();
    } finally {
      watch.cancel(false);
    }
  }
}
