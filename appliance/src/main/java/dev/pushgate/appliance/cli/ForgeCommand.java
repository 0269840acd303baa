package dev.pushgate.appliance.cli;

import dev.pushgate.appliance.DataDirectory;
import dev.pushgate.forge.ForgeRepositories;
import dev.pushgate.types.RepoSlug;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code pushgate forge}: manages the local forge's repositories. */
@Command(
    name = "forge",
    mixinStandardHelpOptions = true,
    description = "Manage the embedded local forge.",
    footer = {"", "Example:", "  pushgate forge create acme/widget --data-dir ./pushgate-data"},
    subcommands = {ForgeCommand.Create.class})
final class ForgeCommand implements Runnable {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = "Create a repository on the local forge with one commit on main (a README)."
          + " Works while serve runs.",
      footer = {"", "Example:", "  pushgate forge create acme/widget --data-dir ./pushgate-data"})
  static final class Create implements Callable<Integer> {
    @Parameters(paramLabel = "OWNER/NAME", description = "The repository to create.")
    String repository;

    @Option(names = "--data-dir", defaultValue = "pushgate-data",
        description = "The appliance's data directory. Default: ${DEFAULT-VALUE}")
    Path dataDir;

    @Override
    public Integer call() throws Exception {
      RepoSlug slug = RepoSlug.parse(repository);
      ForgeRepositories.ForgeRepo repo =
          new ForgeRepositories(DataDirectory.prepare(dataDir).resolve("forge")).create(slug);
      System.out.println("created " + slug + " on the local forge (repository id " + repo.id()
          + ")");
      return 0;
    }
  }
}
