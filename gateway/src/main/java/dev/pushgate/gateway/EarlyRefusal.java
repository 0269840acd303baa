package dev.pushgate.gateway;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import dev.pushgate.policy.UpdateKind;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.transport.PacketLineOut;
import org.eclipse.jgit.transport.SideBandOutputStream;

/**
 * A push whose every command the run's rules deny whatever its pack holds is refused without
 * reading the pack: the rest of the body is discarded unread, and git gets the refusals as soon as
 * it has sent the last byte. Receiving a large pack into the cache (inflating, hashing, indexing,
 * syncing it to disk) took half a second per 100 MiB before a refusal that the command list alone
 * decided.
 *
 * <p>Only a decision that cannot depend on the pack is taken here. A create and a delete are
 * known from the ids; an update of an existing ref is a fast-forward or a force depending on
 * history inside the pack, so it is refused early only when the rules give both kinds the same
 * judgement ({@link Verdict.Case#DENIED}), and it is audited with the kind {@value
 * Verdict#UPDATE_OR_FORCE}. Anything else (a rule that asks, a malformed line, a ref name git
 * would refuse) goes the usual way, through JGit.
 */
final class EarlyRefusal {
  /** One command refused, with the judgement that refused it. */
  record Refused(String ref, ObjectId oldId, ObjectId newId, String kind, Judgement judgement) {}

  /** What the client asked for in the capabilities of its first command, and why it is refused. */
  record Request(List<Refused> refused, Set<String> capabilities, RefusalCode code) {
    boolean sideBand() {
      return capabilities.contains("side-band-64k") || capabilities.contains("side-band");
    }

    boolean reportStatus() {
      return capabilities.contains("report-status") || capabilities.contains("report-status-v2");
    }
  }

  /** Why a push's pack was not received whole and checked, so that its hook never judged it. */
  record Unreceived(RefusalCode code, String reason) {}

  private EarlyRefusal() {}

  /** The refusals, when the rules deny every command of the list whatever its pack holds. */
  static Optional<Request> judge(JudgedCommands judged) {
    if (!judged.everyCommandDenied()) {
      return Optional.empty();
    }
    List<Refused> refused = new ArrayList<>();
    for (int i = 0; i < judged.verdicts().size(); i++) {
      CommandList.Command c = judged.list().commands().get(i);
      Verdict v = judged.verdicts().get(i);
      refused.add(new Refused(c.ref(), c.oldId(), c.newId(), v.kindBeforeThePack(),
          v.judgementWhateverThePack()));
    }
    return Optional.of(new Request(List.copyOf(refused), judged.list().capabilities(),
        RefusalCode.RULE_DENIED));
  }

  /**
   * A push naming one ref in more than one command, refused whole as git's receive-pack refuses
   * it. Judged one by one, one of the commands could land upstream while the cache's atomic
   * update of both failed and git was told nothing landed.
   */
  static Optional<Request> duplicatedRefs(CommandList list) {
    Optional<String> duplicated = firstDuplicate(
        list.commands().stream().map(CommandList.Command::ref).toList());
    if (duplicated.isEmpty()) {
      return Optional.empty();
    }
    Judgement refusal = new Judgement(Decision.DENY, "git", duplicateReason(duplicated.get()));
    List<Refused> refused = new ArrayList<>();
    for (CommandList.Command c : list.commands()) {
      refused.add(new Refused(c.ref(), c.oldId(), c.newId(), kindBeforeThePack(c), refusal));
    }
    return Optional.of(new Request(List.copyOf(refused), list.capabilities(),
        RefusalCode.INVALID_COMMAND));
  }

  /**
   * Every command of a push refused because the cache could not fetch what its advertisement
   * showed; no rule was asked.
   */
  static Request upstreamUnreadable(CommandList list, String reason) {
    return refuseEvery(list, "upstream", reason, RefusalCode.UPSTREAM_REJECTED);
  }

  /** Every command refused, unjudged, because the gateway is full: {@code reason} says retry. */
  static Request shed(CommandList list, String reason) {
    return refuseEvery(list, "admission", reason, RefusalCode.GATEWAY_BUSY);
  }

  /**
   * Every command of a push whose pack was not received whole and checked ({@code why}): JGit
   * refused the push before its hook, so no rule judged it and nothing was pushed.
   */
  static Request unreceived(CommandList list, Unreceived why) {
    return refuseEvery(list, "git", why.reason(), why.code());
  }

  private static Request refuseEvery(CommandList list, String rule, String reason,
      RefusalCode code) {
    Judgement refusal = new Judgement(Decision.DENY, rule, reason);
    List<Refused> refused = new ArrayList<>();
    for (CommandList.Command c : list.commands()) {
      refused.add(new Refused(c.ref(), c.oldId(), c.newId(), kindBeforeThePack(c), refusal));
    }
    return new Request(List.copyOf(refused), list.capabilities(), code);
  }

  private static String kindBeforeThePack(CommandList.Command c) {
    return c.creates() ? UpdateKind.CREATE.id()
        : c.deletes() ? UpdateKind.DELETE.id() : Verdict.UPDATE_OR_FORCE;
  }

  /** The first ref name that appears twice, if any. */
  static Optional<String> firstDuplicate(List<String> refs) {
    Set<String> seen = new HashSet<>();
    for (String ref : refs) {
      if (!seen.add(ref)) {
        return Optional.of(ref);
      }
    }
    return Optional.empty();
  }

  /** git's own words, and what became of the push. */
  static String duplicateReason(String ref) {
    return "multiple updates for ref '" + ref + "' not allowed; nothing was pushed";
  }

  /**
   * Reads what is left of the request body without looking at it, at most {@code limit} bytes;
   * false when there was more (the connection is then not worth keeping).
   */
  static boolean discard(InputStream body, long limit) throws IOException {
    byte[] buffer = new byte[64 * 1024];
    long total = 0;
    for (int n; (n = body.read(buffer)) > 0; ) {
      total += n;
      if (total > limit) {
        return false;
      }
    }
    return true;
  }

  /** Answers as receive-pack does: {@code unpack ok}, then an {@code ng} line per command. */
  static void respond(HttpServletResponse rsp, Request request, List<String> reasons)
      throws IOException {
    // Built whole first: a few hundred bytes, sent in one write.
    ByteArrayOutputStream answer = new ByteArrayOutputStream();
    if (request.reportStatus()) {
      int packet = request.capabilities().contains("side-band-64k")
          ? SideBandOutputStream.MAX_BUF : SideBandOutputStream.SMALL_BUF;
      OutputStream report = request.sideBand()
          ? new SideBandOutputStream(SideBandOutputStream.CH_DATA, packet, answer) : answer;
      PacketLineOut status = new PacketLineOut(report);
      status.writeString("unpack ok\n");
      for (int i = 0; i < request.refused().size(); i++) {
        status.writeString("ng " + request.refused().get(i).ref() + " " + reasons.get(i) + "\n");
      }
      status.end();
    }
    if (request.sideBand()) {
      new PacketLineOut(answer).end();
    }
    rsp.setStatus(HttpServletResponse.SC_OK);
    rsp.setContentType("application/x-git-receive-pack-result");
    rsp.setHeader("Cache-Control", "no-cache, max-age=0, must-revalidate");
    OutputStream out = rsp.getOutputStream();
    answer.writeTo(out);
    out.flush();
  }
}
