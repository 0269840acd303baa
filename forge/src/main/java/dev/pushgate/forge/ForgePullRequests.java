package dev.pushgate.forge;

import dev.pushgate.forge.ForgeCommits.Refused;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;

/**
 * Pull requests on the forge, with GitHub's rules, for the REST and the GraphQL API alike:
 * opened between two existing branches that differ, one open request per head, merged for real
 * in the bare repository.
 */
final class ForgePullRequests {
  private final ForgePulls pulls;
  private final ForgeCommits commits;
  private final Clock clock;

  ForgePullRequests(ForgePulls pulls, ForgeCommits commits, Clock clock) {
    this.pulls = pulls;
    this.commits = commits;
    this.clock = clock;
  }

  ForgePulls store() {
    return pulls;
  }

  Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.SECONDS);
  }

  ForgePulls.Pull open(ForgeRepositories.ForgeRepo r, String title, String body, String head,
      String base) throws IOException, Refused {
    if (title == null || title.isBlank()) {
      throw Refused.invalid("title", "missing_field", null);
    }
    if (head == null || head.isBlank()) {
      throw Refused.invalid("head", "missing_field", null);
    }
    if (base == null || base.isBlank()) {
      throw Refused.invalid("base", "missing_field", null);
    }
    // "owner:branch" names a branch of the owner's repository; only this one is served.
    String owner = r.slug().owner() + ":";
    if (head.regionMatches(true, 0, owner, 0, owner.length())) {
      head = head.substring(owner.length());
    }
    try (Repository repo = ForgeCommits.open(r)) {
      Optional<ObjectId> headTip = ForgeCommits.branch(repo, head);
      Optional<ObjectId> baseTip = ForgeCommits.branch(repo, base);
      if (baseTip.isEmpty()) {
        throw Refused.invalid("base", "invalid", null);
      }
      if (headTip.isEmpty()) {
        throw Refused.invalid("head", "invalid", null);
      }
      try (RevWalk walk = new RevWalk(repo)) {
        if (walk.isMergedInto(walk.parseCommit(headTip.get()), walk.parseCommit(baseTip.get()))) {
          throw Refused.invalid(null, "custom", "No commits between " + base + " and " + head);
        }
      }
    }
    String h = head;
    if (pulls.read(r).pulls().stream().anyMatch(p -> p.open() && p.head().equals(h))) {
      throw Refused.invalid(null, "custom",
          "A pull request already exists for " + owner + head + ".");
    }
    return pulls.open(r, title, body == null ? "" : body, head, base, ForgeCaller.BOT_LOGIN,
        now());
  }

  ForgePulls.Pull get(ForgeRepositories.ForgeRepo r, long number) throws IOException, Refused {
    return pulls.pull(r, number).orElseThrow(() -> new Refused(404, "Not Found"));
  }

  List<ForgePulls.Pull> list(ForgeRepositories.ForgeRepo r) throws IOException {
    return pulls.read(r).pulls();
  }

  /**
   * Merges pull request {@code number}: 405 when it is closed or cannot be merged, 409 when the
   * head moved from {@code expectedHeadSha}.
   */
  ForgePulls.Pull merge(ForgeRepositories.ForgeRepo r, long number, ForgeCommits.Method method,
      String title, String message, String expectedHeadSha) throws IOException, Refused {
    ForgePulls.Pull p = get(r, number);
    if (!p.open()) {
      throw new Refused(405, "Pull Request is not mergeable");
    }
    if (expectedHeadSha != null) {
      try (Repository repo = ForgeCommits.open(r)) {
        Optional<ObjectId> head = ForgeCommits.branch(repo, p.head());
        if (head.isEmpty() || !head.get().name().equals(expectedHeadSha)) {
          throw new Refused(409, "Head branch was modified. Review and try the merge again.");
        }
      }
    }
    String subject = title != null ? title : method == ForgeCommits.Method.MERGE
        ? "Merge pull request #" + number + " from " + r.slug().owner() + "/" + p.head()
        : p.title() + " (#" + number + ")";
    String full = message == null || message.isEmpty() ? subject : subject + "\n\n" + message;
    Instant now = now();
    ObjectId merged = commits.merge(r, p.base(), p.head(), method, full,
        ForgeCommits.forgeIdent(now));
    ForgePulls.Pull done = p.merged(merged.name(), now);
    pulls.replace(r, done);
    return done;
  }

  ForgePulls.Comment comment(ForgeRepositories.ForgeRepo r, long number, String body)
      throws IOException, Refused {
    get(r, number);
    if (body == null || body.isBlank()) {
      throw Refused.invalid("body", "missing_field", null);
    }
    return pulls.comment(r, number, body, ForgeCaller.BOT_LOGIN, now());
  }

  /** The commit a branch points at now, or null. */
  static String tip(ForgeRepositories.ForgeRepo r, String branch) throws IOException {
    try (Repository repo = ForgeCommits.open(r)) {
      return ForgeCommits.branch(repo, branch).map(ObjectId::name).orElse(null);
    }
  }
}
