package dev.pushgate.gateway.api;

import dev.pushgate.policy.ContentRules;
import dev.pushgate.policy.Judgement;
import dev.pushgate.policy.UpdateKind;
import dev.pushgate.types.RepoSlug;
import java.util.List;
import java.util.Optional;

/**
 * Reads what a ref move through the API brings that the boundary did not see: the commits the
 * new id reaches and no ref upstream does, fetched into the gateway's cache and judged there as a
 * push of them is ({@code ContentJudge}, the workflow files they change). Port owned by the API
 * judge; the gateway implements it over its cache.
 */
@FunctionalInterface
public interface UnseenCommits {
  /** Reads nothing: every move to an id is refused as not judged (a judge without a gateway). */
  UnseenCommits NONE = (repo, ref, newId, rules) -> {
    throw new Unreadable("the boundary has no gateway cache to fetch them into");
  };

  /** The run's push rules (and mode) on writing one ref, as a push of it is judged. */
  @FunctionalInterface
  interface RefJudge {
    Judgement judge(String ref, UpdateKind kind);
  }

  /**
   * {@code rules}' judgement of writing {@code ref} of {@code repo}, applied to what upstream
   * changes: a ref that is a symbolic ref upstream moves the ref it points to, judged as a
   * push's is (the gateway's one list of upstream's symrefs and its one judge of them). Without
   * a gateway ({@link #NONE}), the name alone.
   */
  default Judgement judgeWrite(RepoSlug repo, String ref, UpdateKind kind, RefJudge rules) {
    return rules.judge(ref, kind);
  }

  /**
   * What moving {@code ref} of {@code repo} to {@code newId} brings.
   *
   * @param ref the ref moved, or what the call names instead (a field name) when it names none
   * @throws Unreadable when the objects cannot be fetched or read; the move is then refused
   */
  Brought judge(RepoSlug repo, String ref, String newId, ContentRules rules) throws Unreadable;

  /**
   * @param content the content rules' judgement of the new commits, in a push's words, or empty
   *     when no rule asks or denies
   * @param workflows the CI workflow files the new commits change (empty when none)
   */
  record Brought(Optional<Judgement> content, List<String> workflows) {
    public Brought {
      workflows = List.copyOf(workflows);
    }
  }

  /** The commits could not be read; the message says why, in words an agent can act on. */
  final class Unreadable extends Exception {
    private static final long serialVersionUID = 1L;

    public Unreadable(String why) {
      super(why);
    }
  }
}
