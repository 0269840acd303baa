package dev.pushgate.gateway;

import dev.pushgate.policy.Decision;
import dev.pushgate.policy.Judgement;
import dev.pushgate.policy.UpdateKind;
import dev.pushgate.types.RepoSlug;
import java.text.Normalizer;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.lib.Constants;

/**
 * Which of upstream's branches and tags are symbolic refs, and the ref each resolves to, as the
 * last read of upstream's ref list showed them (protocol v2 {@code ls-refs} with {@code symrefs}:
 * git's upload-pack names each symref's last target, {@code symref-target:}). Upstream's
 * receive-pack follows a symbolic ref: a push to {@code refs/heads/alias}, a symref to
 * {@code refs/heads/main}, moves main. So a command is judged as what upstream changes
 * ({@link #judging}), never only as the name it gives.
 *
 * <p>Not known ({@link #unknown}) until a read of the list succeeded; a command judged then is
 * refused, as the gateway cannot tell what it changes. So is one naming a ref outside
 * {@code refs/heads/} and {@code refs/tags/}, which the list does not cover.
 */
final class UpstreamSymrefs {
  /** As git: a chain longer than this is not followed ({@code SYMREF_MAXDEPTH}). */
  static final int MAX_DEPTH = 5;
  /** The rule name audited for a refusal this class makes rather than the run's rules. */
  static final String RULE = "upstream-symref";

  private final RepoSlug repo;
  /** Symbolic branch or tag → the ref upstream resolved it to; null when not known. */
  private final Map<String, String> targets;

  private UpstreamSymrefs(RepoSlug repo, Map<String, String> targets) {
    this.repo = repo;
    this.targets = targets == null ? null : Map.copyOf(targets);
  }

  /** Upstream's symbolic refs of {@code repo} as just listed: symref → the ref it resolves to. */
  static UpstreamSymrefs listed(RepoSlug repo, Map<String, String> targets) {
    return new UpstreamSymrefs(repo, targets);
  }

  /** No list of {@code repo} read yet (or the last read failed). */
  static UpstreamSymrefs unknown(RepoSlug repo) {
    return new UpstreamSymrefs(repo, null);
  }

  boolean known() {
    return targets != null;
  }

  /**
   * The ref upstream changes when a command names {@code ref}: itself when it is no symref; the
   * end of its chain when it is one; empty when the chain is too long or loops (git fails then).
   */
  Optional<String> resolved(String ref) {
    String at = ref;
    for (int depth = 0; depth <= MAX_DEPTH; depth++) {
      String next = targets.get(at);
      if (next == null) {
        return Optional.of(at);
      }
      at = next;
    }
    return Optional.empty();
  }

  /**
   * {@code judge}, applied to what upstream changes: a command naming a symref is judged as the
   * stricter of its name's judgement and its target's, of the same kind (a push to the alias
   * moves the target from the same old id to the same new one). A delete of a symref is refused:
   * what upstream deletes differs by server (JGit deletes the target; git's receive-pack
   * dereferences too, and refuses a push whose updates of a symref and its target disagree), and
   * a person can remove the alias upstream. Unknown symrefs refuse every command.
   */
  Verdict.PushJudge judging(Verdict.PushJudge judge) {
    return (ref, kind) -> {
      if (!known()) {
        return refused("upstream " + repo + "'s ref list cannot be read right now, so the"
            + " gateway cannot tell whether " + ref + " is a symbolic ref there; nothing was"
            + " pushed, try again");
      }
      if (!(ref.startsWith(Constants.R_HEADS) || ref.startsWith(Constants.R_TAGS))) {
        return refused("the gateway lists upstream's branches and tags only, so it cannot tell"
            + " whether " + ref + " is a symbolic ref there that moves another; push to a branch"
            + " or a tag");
      }
      Optional<String> symref = symrefNamed(ref);
      if (symref.isEmpty()) {
        return judge.judge(ref, kind);
      }
      Optional<String> target = resolved(symref.get());
      if (target.isEmpty()) {
        return refused(ref + " is a symbolic ref upstream whose chain is longer than "
            + MAX_DEPTH + " or loops; nothing was pushed to it");
      }
      String what = ref + " is a symbolic ref upstream to " + target.get();
      if (kind == UpdateKind.DELETE) {
        return refused("deleting " + ref + " is denied: " + what + ", and upstream would"
            + " delete " + target.get() + " with it; a repository admin removes the alias");
      }
      Judgement byName = judge.judge(ref, kind);
      Judgement byTarget = judge.judge(target.get(), kind);
      if (byTarget.decision().compareTo(byName.decision()) > 0
          || byTarget.decision() == byName.decision() && byTarget.decision() != Decision.ALLOW) {
        return new Judgement(byTarget.decision(), byTarget.rule(),
            what + ", which this push would move: " + byTarget.reason());
      }
      return byName;
    };
  }

  /**
   * The symref {@code ref} names: itself, or one that is the same name to a file system that
   * folds names. Git's files and GitHub's are case-sensitive, but an upstream on a folding file
   * system (macOS's APFS and HFS+, Windows') resolves {@code refs/heads/ALIAS}, the decomposed
   * {@code cafe\u0301} of {@code café}, or a name with an invisible format character in it
   * (HFS+ ignores U+200C and its kind) to the loose ref of the symref. Judging those as the
   * symref costs only a stricter answer for names no one should push.
   */
  private Optional<String> symrefNamed(String ref) {
    if (targets.containsKey(ref)) {
      return Optional.of(ref);
    }
    if (targets.isEmpty()) {
      return Optional.empty(); // most repositories: nothing to fold against
    }
    String folded = folded(ref);
    return targets.keySet().stream().filter(s -> folded(s).equals(folded)).sorted().findFirst();
  }

  /** {@code name} as a folding file system compares it: composed, no format characters, no case. */
  static String folded(String name) {
    StringBuilder kept = new StringBuilder(name.length());
    Normalizer.normalize(name, Normalizer.Form.NFC).codePoints()
        .filter(c -> Character.getType(c) != Character.FORMAT)
        .forEach(kept::appendCodePoint);
    return Normalizer.normalize(kept, Normalizer.Form.NFC).toUpperCase(Locale.ROOT)
        .toLowerCase(Locale.ROOT);
  }

  private static Judgement refused(String why) {
    return new Judgement(Decision.DENY, RULE, why);
  }
}
