package dev.pushgate.appliance.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The {@code --data-dir} of a command that talks to the running appliance over its control
 * socket: one option, one default, one wording for every such command.
 */
final class RunningDataDir {
  @Option(names = "--data-dir", defaultValue = "pushgate-data",
      description = "The running appliance's data directory. Default: ${DEFAULT-VALUE}")
  Path path;

  /** The running appliance's control socket, or how to start one ({@link ControlSocket#open}). */
  ControlSocket control() throws Exception {
    return ControlSocket.open(path);
  }
}
