package dev.pushgate.gateway;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import dev.pushgate.policy.PushRules;
import dev.pushgate.policy.UpdateKind;
import java.util.EnumMap;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.transport.ReceiveCommand;

/**
 * What the run's rules say about one command, judged once from its command line, before its
 * pack arrives. A create and a delete are known from the ids; an update is a fast-forward or a
 * force depending on history inside the pack, so it is judged as both, and only the pack tells
 * which of the two judgements applies ({@link #judgement(ReceiveCommand)}).
 *
 * <p>The early refusal, the early mint, the streaming decision and the push hook all read this
 * one verdict; none of them maps a command to a kind of its own.
 */
final class Verdict {
  /** What can be said of the command before its pack is read. */
  enum Case {
    /** Denied whatever the pack holds, by one and the same judgement. */
    DENIED,
    /** Allowed whatever the pack holds. */
    ALLOWED,
    /** A person decides, whatever the pack holds. */
    ASK,
    /** Depends on the pack: an update the rules judge differently as fast-forward and force. */
    BY_THE_PACK
  }

  /** The kind audited for an update refused before its pack told fast-forward from force. */
  static final String UPDATE_OR_FORCE = "update-or-force";

  private final Case verdict;
  private final Map<UpdateKind, Judgement> byKind;
  private final boolean noChange;

  private Verdict(Case verdict, Map<UpdateKind, Judgement> byKind, boolean noChange) {
    this.verdict = verdict;
    this.byKind = byKind;
    this.noChange = noChange;
  }

  /** Judges one ref update: the run's mode and push rules ({@link RunContext#judgePush}). */
  @FunctionalInterface
  interface PushJudge {
    Judgement judge(String ref, UpdateKind kind);
  }

  /** The verdict of {@code rules} alone on moving {@code ref} from {@code oldId} to {@code newId}. */
  static Verdict of(PushRules rules, String ref, ObjectId oldId, ObjectId newId) {
    return of(rules::judge, ref, oldId, newId);
  }

  /** The verdict of {@code rules} on moving {@code ref} from {@code oldId} to {@code newId}. */
  static Verdict of(PushJudge rules, String ref, ObjectId oldId, ObjectId newId) {
    boolean creates = oldId.equals(ObjectId.zeroId());
    boolean deletes = newId.equals(ObjectId.zeroId());
    Map<UpdateKind, Judgement> byKind = new EnumMap<>(UpdateKind.class);
    // The kinds JGit's ReceiveCommand can give these ids (zero to zero aside: PushHook refuses
    // it before any judgement is read).
    if (creates) {
      byKind.put(UpdateKind.CREATE, rules.judge(ref, UpdateKind.CREATE));
    } else if (deletes) {
      byKind.put(UpdateKind.DELETE, rules.judge(ref, UpdateKind.DELETE));
    } else {
      byKind.put(UpdateKind.UPDATE, rules.judge(ref, UpdateKind.UPDATE));
      byKind.put(UpdateKind.FORCE, rules.judge(ref, UpdateKind.FORCE));
    }
    boolean noChange = oldId.equals(newId);
    return new Verdict(caseOf(byKind, noChange, creates && deletes), Map.copyOf(byKind),
        noChange);
  }

  private static Case caseOf(Map<UpdateKind, Judgement> byKind, boolean noChange,
      boolean nothingToNothing) {
    if (nothingToNothing) {
      return Case.BY_THE_PACK; // not a command git sends; the hook refuses it
    }
    if (byKind.values().stream().allMatch(j -> j.decision() == Decision.ALLOW)) {
      // A command that changes nothing is JGit's to answer; nothing is minted or streamed for it.
      return noChange ? Case.BY_THE_PACK : Case.ALLOWED;
    }
    if (byKind.values().stream().distinct().count() == 1) {
      Judgement j = byKind.values().iterator().next();
      return j.decision() == Decision.DENY ? Case.DENIED : Case.ASK;
    }
    if (byKind.values().stream().allMatch(j -> j.decision() == Decision.ASK)) {
      return Case.ASK;
    }
    return Case.BY_THE_PACK;
  }

  Case verdict() {
    return verdict;
  }

  boolean deniedWhateverThePack() {
    return verdict == Case.DENIED;
  }

  boolean allowedWhateverThePack() {
    return verdict == Case.ALLOWED;
  }

  /** True when the push may forward this command without asking anyone: worth a token early. */
  boolean mayBeAllowedOutright() {
    return verdict == Case.ALLOWED || verdict == Case.BY_THE_PACK && !noChange
        && byKind.values().stream().anyMatch(j -> j.decision() == Decision.ALLOW);
  }

  /** The kind audited before the pack: create, delete, or {@value #UPDATE_OR_FORCE}. */
  String kindBeforeThePack() {
    return byKind.size() == 1 ? byKind.keySet().iterator().next().id() : UPDATE_OR_FORCE;
  }

  /** The one judgement of a verdict the pack cannot change ({@link Case#DENIED}). */
  Judgement judgementWhateverThePack() {
    if (byKind.values().stream().distinct().count() != 1) {
      throw new IllegalStateException("the pack decides between " + byKind);
    }
    return byKind.values().iterator().next();
  }

  /** The judgement for {@code cmd} once its pack is received and JGit has typed it. */
  Judgement judgement(ReceiveCommand cmd) {
    Judgement j = byKind.get(kindOf(cmd));
    if (j == null) {
      throw new IllegalStateException(cmd.getRefName() + " is not the command judged");
    }
    return j;
  }

  /** The kind of a received command: JGit tells fast-forward from force off the pack. */
  static UpdateKind kindOf(ReceiveCommand cmd) {
    return switch (cmd.getType()) {
      case CREATE -> UpdateKind.CREATE;
      case UPDATE -> UpdateKind.UPDATE;
      case UPDATE_NONFASTFORWARD -> UpdateKind.FORCE;
      case DELETE -> UpdateKind.DELETE;
    };
  }
}
