package dev.pushgate.it;

import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * Two appliances with forge repository acme/widget, one for each kind of run proxy: {@code
 * sandboxed} (bubblewrap, the sandbox's egress proxy) and {@code none} ({@code --sandbox off}, the
 * loopback proxy of a run without an OS sandbox, with the API boundary on), in {@code root}, the
 * real path of a test's directory, which the sandbox user may pass through.
 */
record BothRunProxies(Path root, RunningAppliance sandboxed, RunningAppliance none)
    implements AutoCloseable {
  static BothRunProxies start(Path tmp) throws Exception {
    ExecTest.requireBwrap();
    Path root = tmp.toRealPath();
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
    RunningAppliance sandboxed = RunningAppliance.start(root.resolve("data"));
    RunningAppliance none = null;
    try {
      sandboxed.forgeCreate("acme/widget");
      none = RunningAppliance.on(root.resolve("data-none"))
          .jvm(List.of("-Dpushgate.github-api-boundary=true"))
          .serve(List.of("--sandbox", "off")).start();
      none.forgeCreate("acme/widget");
      return new BothRunProxies(root, sandboxed, none);
    } catch (Exception | Error e) {
      try {
        new BothRunProxies(root, sandboxed, none).close();
      } catch (Exception x) {
        e.addSuppressed(x);
      }
      throw e;
    }
  }

  /** The appliance for {@code "sandboxed"} or {@code "none"}. */
  RunningAppliance of(String proxy) {
    return proxy.equals("sandboxed") ? sandboxed : none;
  }

  @Override
  public void close() throws Exception {
    for (RunningAppliance app : new RunningAppliance[] {sandboxed, none}) {
      if (app != null) {
        app.close();
      }
    }
  }
}
