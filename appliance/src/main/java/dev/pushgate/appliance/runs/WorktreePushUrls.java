package dev.pushgate.appliance.runs;

import dev.pushgate.gitconfig.GitHost;
import dev.pushgate.gitconfig.PushUrlRewrite;
import dev.pushgate.gitconfig.PushUrlRewriter;
import dev.pushgate.gitconfig.WorktreeConfig;
import dev.pushgate.sandbox.Verdict;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A run's workdir may hold a repository whose remotes have an explicit {@code pushurl}; git does
 * not apply the run config's {@code pushInsteadOf} to those, so they would bypass the gateway.
 * They are rewritten to the gateway when the run starts (as {@code pushgate rewrite-push-urls}
 * does); one that cannot be rewritten refuses the launch, never leaves a way around the rules.
 */
public final class WorktreePushUrls {
  /** What became of the workdir's push URLs: what was rewritten, or why the run may not launch. */
  public record Outcome(List<PushUrlRewrite> rewrites, Verdict refusal) {
    public Outcome {
      rewrites = List.copyOf(rewrites);
    }
  }

  private final String gatewayBaseUrl;
  private final GitHost gitHost;

  public WorktreePushUrls(String gatewayBaseUrl, GitHost gitHost) {
    this.gatewayBaseUrl = gatewayBaseUrl;
    this.gitHost = gitHost;
  }

  /** Rewrites the push URLs of the git host in the repository config {@code workdir} uses. */
  public Outcome rewrite(Path workdir) {
    Optional<Path> config = Optional.empty();
    try {
      config = WorktreeConfig.of(workdir);
      if (config.isEmpty()) {
        return new Outcome(List.of(), null);
      }
      return new Outcome(PushUrlRewriter.rewrite(config.get(), gatewayBaseUrl, gitHost), null);
    } catch (IOException | RuntimeException e) {
      // the messages name the file, the remote and the URL with its user info redacted
      String file = config.map(Path::toString).orElse(workdir + "/.git");
      return new Outcome(List.of(), Verdict.refused(
          "the workdir's push URLs cannot be sent to the gateway, so a push could go around the"
              + " rules: " + e.getMessage(),
          List.of("fix or remove the push URL in " + file + " (git config --file " + file
                  + " --unset-all remote.<name>.pushurl), then start the run again",
              "pushgate rewrite-push-urls " + workdir + " shows what it finds")));
    }
  }
}
