package dev.pushgate.gateway;

import dev.pushgate.types.AuditEntry;
import dev.pushgate.types.UntrustedText;
import dev.pushgate.types.Secret;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URISyntaxException;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.eclipse.jgit.internal.storage.pack.PackWriter;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.pack.PackConfig;
import org.eclipse.jgit.transport.PacketLineOut;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.transport.UserAgent;

/**
 * Pushes allowed commands upstream from the cache, each with the client's old id as its lease,
 * and reports upstream's per-ref verdict back on each command, rejections included.
 *
 * <p>The push is one {@code POST git-receive-pack}, without the {@code GET info/refs} a git
 * client sends first: the gateway read upstream's refs moments ago, to advertise them, and a
 * second listing would cost every push a round trip to GitHub. Upstream still checks each old
 * id against its ref when it applies the command, so a ref that moved in between is refused
 * there, and reported as stale.
 */
final class Forwarder {
  /** What upstream said of one command. */
  record Outcome(ReceiveCommand.Result result, String message) {
    boolean ok() {
      return result == ReceiveCommand.Result.OK;
    }

    String describe() {
      return ok() ? "ok" : "rejected upstream: " + (message == null ? result.name() : message);
    }

    /** As the audit log records it: the words of {@link #describe}. */
    AuditEntry.Outcome audited() {
      return ok() ? AuditEntry.Outcome.OK : new AuditEntry.Outcome.Rejected(describe());
    }
  }

  static final String STALE =
      "stale info: upstream changed since the gateway read it; fetch and try again";
  /** What receive-pack (git's or JGit's) answers when a ref is not at the command's old id. */
  private static final List<String> LEASE_FAILURES = List.of("invalid old id sent",
      "already exists", "no such ref", "failed to update ref", "failed to lock", "lock error",
      "stale info", "cannot lock ref");
  private static final Pattern PROGRESS = Pattern.compile("^[^:]+: +\\d+% \\(\\d+/\\d+\\).*");
  /** How much of an answer is read past its report, so that the connection can be reused. */
  private static final int MAX_REPORT_BYTES = UpstreamReport.MAX_BYTES;

  private final UpstreamHttp upstream;

  Forwarder(int timeoutSeconds) {
    this.upstream = new UpstreamHttp(timeoutSeconds);
  }

  /**
   * @param upstreamRefs upstream's refs as the gateway last read them: what upstream is known to
   *     have, so that the pack leaves it out
   */
  Map<ReceiveCommand, Outcome> forward(
      Repository db,
      String remoteUrl,
      Secret token,
      List<ReceiveCommand> commands,
      Collection<Ref> upstreamRefs,
      boolean atomic,
      List<String> pushOptions,
      Consumer<String> messages) {
    Map<ReceiveCommand, Outcome> refused = notFastForwards(db, commands);
    if (!refused.isEmpty()) {
      return withRefused(commands, refused, atomic, db, remoteUrl, token, upstreamRefs,
          pushOptions, messages);
    }
    HttpURLConnection http;
    try {
      http = open(remoteUrl, token);
    } catch (URISyntaxException | IllegalArgumentException e) {
      return failAll(commands, "upstream push failed: the upstream URL is not valid");
    } catch (IOException e) {
      return failAll(commands, "upstream push failed: " + describe(remoteUrl, e));
    }
    try (OutputStream body = new BufferedOutputStream(http.getOutputStream(), 64 * 1024)) {
      writeCommands(body, commands, atomic, pushOptions);
      writePack(body, db, commands, upstreamRefs);
    } catch (IOException | RuntimeException e) {
      return answerFailed(http, commands, remoteUrl, e);
    }
    return answer(http, remoteUrl, commands, messages);
  }

  /**
   * The outcome of a push whose body could not be sent in full. Upstream may have answered
   * before it stopped reading (a repository that is gone, a token it refuses): its status says
   * more than the broken write.
   */
  Map<ReceiveCommand, Outcome> answerFailed(HttpURLConnection http, List<ReceiveCommand> commands,
      String remoteUrl, Exception e) {
    try {
      int status = http.getResponseCode();
      if (status > 0 && status != HttpURLConnection.HTTP_OK) {
        return failAll(commands, "upstream push failed: " + remoteUrl + ": " + refusedWith(status));
      }
    } catch (IOException | RuntimeException ignored) {
      // no answer either: the broken write is all there is to say
    } finally {
      http.disconnect();
    }
    return failAll(commands, "upstream push failed: " + describe(remoteUrl, e));
  }

  /** Reads upstream's answer to a push whose body has been sent in full, and closes it. */
  Map<ReceiveCommand, Outcome> answer(HttpURLConnection http, String remoteUrl,
      List<ReceiveCommand> commands, Consumer<String> messages) {
    boolean reusable = false;
    try {
      int status = http.getResponseCode();
      if (status != HttpURLConnection.HTTP_OK) {
        discard(http.getErrorStream());
        return failAll(commands, "upstream push failed: " + remoteUrl + ": " + refusedWith(status));
      }
      UpstreamReport report;
      try (InputStream in = http.getInputStream()) {
        report = UpstreamReport.read(in);
        discard(in);
      }
      reusable = true; // answered in full: the connection is kept for the next push
      relay(report.messages(), messages);
      return outcomes(commands, report, remoteUrl);
    } catch (IOException | RuntimeException e) {
      return failAll(commands, "upstream push failed: " + describe(remoteUrl, e));
    } finally {
      if (!reusable) {
        http.disconnect();
      }
    }
  }

  private static String describe(String remoteUrl, Exception e) {
    if (e instanceof java.net.ConnectException) {
      return remoteUrl + ": connection failed";
    }
    if (e instanceof java.net.SocketTimeoutException) {
      return remoteUrl + ": no answer in time";
    }
    if (e instanceof java.net.UnknownHostException) {
      return remoteUrl + ": unknown host";
    }
    return remoteUrl + ": " + (e.getMessage() == null ? e.getClass().getSimpleName()
        : oneLine(e.getMessage()));
  }

  private static Map<ReceiveCommand, Outcome> outcomes(List<ReceiveCommand> commands,
      UpstreamReport report, String remoteUrl) {
    String failed = "upstream push failed: " + remoteUrl + ": ";
    if (report.error() != null) {
      return failAll(commands, failed + oneLine(report.error()));
    }
    if (report.unpack() == null) {
      return failAll(commands, failed + "upstream sent no report");
    }
    if (!"ok".equals(report.unpack())) {
      return failAll(commands, failed + "error occurred during unpacking on the remote end: "
          + oneLine(report.unpack()));
    }
    Map<ReceiveCommand, Outcome> outcomes = new LinkedHashMap<>();
    for (ReceiveCommand cmd : commands) {
      outcomes.put(cmd, outcomeOf(report.refs().get(cmd.getRefName())));
    }
    return outcomes;
  }

  /**
   * Upstream cannot tell a fast-forward from a forced update in the protocol, so a command sent
   * as an update must be one: checked here, in the cache, as git checks before a push.
   */
  private static Map<ReceiveCommand, Outcome> notFastForwards(Repository db,
      List<ReceiveCommand> commands) {
    Map<ReceiveCommand, Outcome> refused = new LinkedHashMap<>();
    try (RevWalk walk = new RevWalk(db)) {
      for (ReceiveCommand cmd : commands) {
        if (cmd.getType() == ReceiveCommand.Type.UPDATE) {
          walk.reset();
          RevObject oldObj = walk.parseAny(cmd.getOldId());
          RevObject newObj = walk.parseAny(cmd.getNewId());
          if (!(oldObj instanceof RevCommit o) || !(newObj instanceof RevCommit n)
              || !walk.isMergedInto(o, n)) {
            refused.put(cmd, new Outcome(ReceiveCommand.Result.REJECTED_NONFASTFORWARD, null));
          }
        }
      }
    } catch (IOException e) {
      commands.forEach(c -> refused.putIfAbsent(c, new Outcome(
          ReceiveCommand.Result.REJECTED_OTHER_REASON,
          "upstream push not attempted: the gateway could not read the pushed commits")));
    }
    return refused;
  }

  /** Forwards what is left once {@code refused} is taken out, unless the push is atomic. */
  private Map<ReceiveCommand, Outcome> withRefused(List<ReceiveCommand> commands,
      Map<ReceiveCommand, Outcome> refused, boolean atomic, Repository db, String remoteUrl,
      Secret token, Collection<Ref> upstreamRefs, List<String> pushOptions,
      Consumer<String> messages) {
    List<ReceiveCommand> rest = commands.stream().filter(c -> !refused.containsKey(c)).toList();
    Map<ReceiveCommand, Outcome> outcomes = new LinkedHashMap<>();
    Map<ReceiveCommand, Outcome> forwarded = atomic || rest.isEmpty()
        ? failAll(rest, "atomic push refused because another ref was refused")
        : forward(db, remoteUrl, token, rest, upstreamRefs, false, pushOptions, messages);
    for (ReceiveCommand cmd : commands) {
      outcomes.put(cmd, refused.containsKey(cmd) ? refused.get(cmd) : forwarded.get(cmd));
    }
    return outcomes;
  }

  /** The push request to upstream, not yet sent. */
  HttpURLConnection open(String remoteUrl, Secret token)
      throws IOException, URISyntaxException {
    return upstream.receivePack(remoteUrl, token);
  }

  /** The command list, with the capabilities the gateway asks of upstream, and push options. */
  static void writeCommands(OutputStream body, List<ReceiveCommand> commands, boolean atomic,
      List<String> pushOptions) throws IOException {
    boolean withOptions = pushOptions != null && !pushOptions.isEmpty();
    PacketLineOut pkt = new PacketLineOut(body);
    String capabilities = "report-status side-band-64k ofs-delta"
        + (atomic ? " atomic" : "") + (withOptions ? " push-options" : "")
        + " agent=" + UserAgent.get();
    boolean first = true;
    for (ReceiveCommand cmd : commands) {
      String line = cmd.getOldId().name() + " " + cmd.getNewId().name() + " " + cmd.getRefName();
      pkt.writeString(first ? line + "\0" + capabilities : line);
      first = false;
    }
    pkt.end();
    if (withOptions) {
      for (String option : pushOptions) {
        pkt.writeString(option);
      }
      pkt.end();
    }
  }

  private static void writePack(OutputStream body, Repository db, List<ReceiveCommand> commands,
      Collection<Ref> upstreamRefs) throws IOException {
    Set<ObjectId> wanted = new HashSet<>();
    for (ReceiveCommand cmd : commands) {
      if (cmd.getType() != ReceiveCommand.Type.DELETE) {
        wanted.add(cmd.getNewId());
      }
    }
    if (wanted.isEmpty()) {
      return; // deletes only: receive-pack expects no pack
    }
    Set<ObjectId> upstreamHas = new HashSet<>();
    for (Ref r : upstreamRefs) {
      if (r.getObjectId() != null) {
        upstreamHas.add(r.getObjectId());
      }
    }
    try (ObjectReader reader = db.newObjectReader();
        PackWriter writer = new PackWriter(new PackConfig(db), reader)) {
      // As JGit's own push does: the objects upstream has are left out and may be delta bases.
      writer.setIndexDisabled(true);
      writer.setUseCachedPacks(true);
      writer.setUseBitmaps(true);
      writer.setThin(true);
      writer.setReuseValidatingObjects(false);
      writer.setDeltaBaseAsOffset(true);
      writer.preparePack(NullProgressMonitor.INSTANCE, wanted, upstreamHas);
      writer.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, body);
    }
  }

  private static String refusedWith(int status) {
    return switch (status) {
      case HttpURLConnection.HTTP_UNAUTHORIZED, HttpURLConnection.HTTP_FORBIDDEN ->
          "upstream refused the gateway's write token (HTTP " + status + ")";
      case HttpURLConnection.HTTP_NOT_FOUND -> "not found (HTTP 404)";
      default -> "HTTP " + status;
    };
  }

  private static Outcome outcomeOf(String ng) {
    if (ng == null) {
      return new Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON,
          "upstream did not report on this ref");
    }
    if (ng.isEmpty()) {
      return new Outcome(ReceiveCommand.Result.OK, null);
    }
    String lower = ng.toLowerCase(Locale.ROOT);
    if (LEASE_FAILURES.stream().anyMatch(lower::startsWith)) {
      return new Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON, STALE);
    }
    return new Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON, "upstream: " + oneLine(ng));
  }

  private static Map<ReceiveCommand, Outcome> failAll(List<ReceiveCommand> commands, String why) {
    Outcome failed = new Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON, why);
    Map<ReceiveCommand, Outcome> outcomes = new LinkedHashMap<>();
    commands.forEach(c -> outcomes.put(c, failed));
    return outcomes;
  }

  private static void relay(String upstreamMessages, Consumer<String> messages) {
    for (String line : upstreamMessages.split("[\r\n]+")) {
      if (!line.isBlank() && !PROGRESS.matcher(line.strip()).matches()) {
        messages.accept("upstream: " + oneLine(line));
      }
    }
  }

  /** Reads what is left of an answer, bounded, so that the connection can be reused. */
  private static void discard(InputStream rest) throws IOException {
    if (rest != null) {
      byte[] buf = new byte[8192];
      long left = MAX_REPORT_BYTES;
      for (int n; left > 0 && (n = rest.read(buf)) > 0; ) {
        left -= n;
      }
      rest.close();
    }
  }

  /** What upstream said, on one line of ours ({@link UntrustedText#oneLine}). */
  static String oneLine(String s) {
    return s == null ? "no detail" : UntrustedText.oneLine(s);
  }
}
