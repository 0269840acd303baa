package dev.pushgate.appliance.cli;

import dev.pushgate.gitconfig.PushUrlRewrite;
import dev.pushgate.gitconfig.PushUrlRewriter;
import dev.pushgate.gitconfig.WorktreeConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pushgate rewrite-push-urls}: git does not apply {@code pushInsteadOf} to a remote with
 * an explicit {@code pushurl}, so such push URLs are rewritten in the worktree's repository config.
 */
@Command(
    name = "rewrite-push-urls",
    mixinStandardHelpOptions = true,
    description = "Rewrite explicit GitHub pushurls of a worktree's repository to the gateway.",
    footer = {"", "Example:",
        "  pushgate rewrite-push-urls ~/runs/42/widget --gateway http://127.0.0.1:7070"})
final class RewritePushUrlsCommand implements Callable<Integer> {
  @Parameters(paramLabel = "WORKTREE", description = "A worktree, or a bare repository.")
  Path worktree;

  @Option(names = "--gateway", defaultValue = "http://127.0.0.1:7070",
      description = "The gateway's base URL. Default: ${DEFAULT-VALUE}")
  String gateway;

  @Option(names = "--git-host", defaultValue = "github.com",
      description = "The git host whose URLs are rewritten: a name, or the base URL of a GitHub"
          + " Enterprise Server (the appliance's github.host). Default: ${DEFAULT-VALUE}")
  String gitHost;

  @Override
  public Integer call() throws Exception {
    Path config = configOf(worktree);
    List<PushUrlRewrite> done = PushUrlRewriter.rewrite(config, gateway, gitHost);
    for (PushUrlRewrite r : done) {
      System.out.println("remote." + r.remote() + ".pushurl: " + r.from() + " -> " + r.to());
    }
    if (done.isEmpty()) {
      System.out.println("no GitHub pushurl to rewrite in " + config);
    }
    return 0;
  }

  static Path configOf(Path dir) throws java.io.IOException {
    return WorktreeConfig.of(dir).orElseThrow(() -> new IllegalArgumentException(
        dir + " is not a git worktree or repository"));
  }
}
