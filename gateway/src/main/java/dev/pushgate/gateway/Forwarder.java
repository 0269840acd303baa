package dev.pushgate.gateway;

import dev.pushgate.broker.Secret;
import java.io.IOException;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.eclipse.jgit.errors.NotSupportedException;
import org.eclipse.jgit.errors.TransportException;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.PushResult;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.transport.RemoteRefUpdate;
import org.eclipse.jgit.transport.Transport;
import org.eclipse.jgit.transport.URIish;

/**
 * Pushes allowed commands upstream from the cache, each with the client's old id as its lease,
 * and reports upstream's per-ref verdict back on each command, rejections included.
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
  }

  private final int timeoutSeconds;

  Forwarder(int timeoutSeconds) {
    this.timeoutSeconds = timeoutSeconds;
  }

  Map<ReceiveCommand, Outcome> forward(
      Repository db,
      String remoteUrl,
      Secret token,
      List<ReceiveCommand> commands,
      boolean atomic,
      List<String> pushOptions,
      Consumer<String> messages) {
    Map<ReceiveCommand, RemoteRefUpdate> updates = new LinkedHashMap<>();
    Map<ReceiveCommand, Outcome> outcomes = new LinkedHashMap<>();
    try (Transport transport = Transport.open(db, new URIish(remoteUrl))) {
      UpstreamCache.authenticate(transport, token);
      transport.setTimeout(timeoutSeconds);
      transport.setPushAtomic(atomic);
      if (pushOptions != null && !pushOptions.isEmpty()) {
        transport.setPushOptions(pushOptions);
      }
      for (ReceiveCommand cmd : commands) {
        updates.put(cmd, toRemoteUpdate(db, cmd));
      }
      PushResult result =
          transport.push(NullProgressMonitor.INSTANCE, new ArrayList<>(updates.values()));
      relay(result.getMessages(), messages);
      for (Map.Entry<ReceiveCommand, RemoteRefUpdate> e : updates.entrySet()) {
        RemoteRefUpdate reported = result.getRemoteUpdate(e.getKey().getRefName());
        outcomes.put(e.getKey(), outcomeOf(reported == null ? e.getValue() : reported));
      }
    } catch (TransportException | NotSupportedException | URISyntaxException e) {
      Outcome failed = new Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON,
          "upstream push failed: " + oneLine(e.getMessage()));
      commands.forEach(c -> outcomes.put(c, failed));
    } catch (IOException | RuntimeException e) {
      Outcome failed = new Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON,
          "upstream push failed: " + e.getClass().getSimpleName());
      commands.forEach(c -> outcomes.put(c, failed));
    }
    return outcomes;
  }

  private static RemoteRefUpdate toRemoteUpdate(Repository db, ReceiveCommand cmd)
      throws IOException {
    boolean delete = cmd.getType() == ReceiveCommand.Type.DELETE;
    ObjectId newId = delete ? null : cmd.getNewId();
    return new RemoteRefUpdate(
        db,
        delete ? null : newId.name(),
        newId,
        cmd.getRefName(),
        cmd.getType() == ReceiveCommand.Type.UPDATE_NONFASTFORWARD || delete,
        null,
        cmd.getOldId());
  }

  private static Outcome outcomeOf(RemoteRefUpdate u) {
    return switch (u.getStatus()) {
      case OK, UP_TO_DATE -> new Outcome(ReceiveCommand.Result.OK, null);
      case REJECTED_NONFASTFORWARD -> new Outcome(ReceiveCommand.Result.REJECTED_NONFASTFORWARD, null);
      case REJECTED_NODELETE -> new Outcome(ReceiveCommand.Result.REJECTED_NODELETE, null);
      case REJECTED_REMOTE_CHANGED -> new Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON,
          "stale info: upstream changed since the gateway read it; fetch and try again");
      case REJECTED_OTHER_REASON -> new Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON,
          "upstream: " + oneLine(u.getMessage()));
      case NON_EXISTING -> new Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON,
          "upstream: the ref does not exist");
      case NOT_ATTEMPTED, AWAITING_REPORT -> new Outcome(ReceiveCommand.Result.REJECTED_OTHER_REASON,
          "upstream did not report on this ref");
    };
  }

  private static void relay(String upstreamMessages, Consumer<String> messages) {
    if (upstreamMessages == null || upstreamMessages.isBlank()) {
      return;
    }
    for (String line : upstreamMessages.split("\\R")) {
      if (!line.isBlank()) {
        messages.accept("upstream: " + line.strip());
      }
    }
  }

  static String oneLine(String s) {
    if (s == null) {
      return "no detail";
    }
    return s.replaceAll("[\\r\\n\\x00-\\x1f\\x7f]+", " ").strip();
  }
}
