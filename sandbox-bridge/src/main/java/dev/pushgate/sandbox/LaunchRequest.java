package dev.pushgate.sandbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One command to run under a run's plan.
 *
 * @param plan the run's sandbox plan, as {@code POST /v1/runs} answered it
 * @param command the program and its arguments
 * @param bridges host services reachable inside on loopback (the push gateway)
 * @param files host files handed in read-only (the run's git config)
 * @param inheritStdin whether the command reads this process's standard input; otherwise it reads
 *     an empty input
 * @param timeout how long the command may run before it is killed, or null for no limit
 * @param apiInterception the GitHub API host names the run's proxy tunnels to the appliance's API
 *     boundary, or null for none
 */
public record LaunchRequest(
    SandboxPlan plan,
    List<String> command,
    List<Bridge> bridges,
    List<SandboxFile> files,
    boolean inheritStdin,
    Duration timeout,
    ApiInterception apiInterception) {

  /** A launch whose proxy intercepts nothing. */
  public LaunchRequest(SandboxPlan plan, List<String> command, List<Bridge> bridges,
      List<SandboxFile> files, boolean inheritStdin, Duration timeout) {
    this(plan, command, bridges, files, inheritStdin, timeout, null);
  }

  public LaunchRequest {
    if (plan == null) {
      throw new IllegalArgumentException("a launch needs the run's plan");
    }
    if (command == null || command.isEmpty()) {
      throw new IllegalArgumentException("a launch needs a command");
    }
    for (String arg : command) {
      if (arg == null || arg.indexOf('\0') >= 0) {
        throw new IllegalArgumentException("a command argument is missing or has a NUL");
      }
    }
    if (command.get(0).isEmpty()) {
      throw new IllegalArgumentException("the command's program is empty");
    }
    command = List.copyOf(command);
    bridges = bridges == null ? List.of() : List.copyOf(bridges);
    files = files == null ? List.of() : List.copyOf(files);
    List<String> names = new ArrayList<>();
    List<Integer> ports = new ArrayList<>();
    for (Bridge b : bridges) {
      if (names.contains(b.name()) || b.name().equals(LocalLauncher.PROXY_BRIDGE)) {
        throw new IllegalArgumentException("two bridges are named " + b.name());
      }
      if (ports.contains(b.guestPort())) {
        throw new IllegalArgumentException("two bridges listen on port " + b.guestPort());
      }
      names.add(b.name());
      ports.add(b.guestPort());
    }
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw new IllegalArgumentException("a timeout must be positive: " + timeout);
    }
  }

  /** The command under the plan, with no bridge, no file, an empty input and no timeout. */
  public static LaunchRequest of(SandboxPlan plan, List<String> command) {
    return new LaunchRequest(plan, command, List.of(), List.of(), false, null);
  }

  public LaunchRequest withBridge(Bridge bridge) {
    List<Bridge> b = new ArrayList<>(bridges);
    b.add(bridge);
    return new LaunchRequest(plan, command, b, files, inheritStdin, timeout, apiInterception);
  }

  public LaunchRequest withFile(SandboxFile file) {
    List<SandboxFile> f = new ArrayList<>(files);
    f.add(file);
    return new LaunchRequest(plan, command, bridges, f, inheritStdin, timeout, apiInterception);
  }

  public LaunchRequest withInheritedStdin() {
    return new LaunchRequest(plan, command, bridges, files, true, timeout, apiInterception);
  }

  public LaunchRequest withTimeout(Duration timeout) {
    return new LaunchRequest(plan, command, bridges, files, inheritStdin, timeout, apiInterception);
  }

  /** The same launch with the GitHub API host names tunnelled to the boundary. */
  public LaunchRequest withApiInterception(ApiInterception interception) {
    return new LaunchRequest(plan, command, bridges, files, inheritStdin, timeout, interception);
  }

  /** The same launch with another command (the clone before the command, say). */
  public LaunchRequest withCommand(List<String> command) {
    return new LaunchRequest(plan, command, bridges, files, inheritStdin, timeout, apiInterception);
  }
}
