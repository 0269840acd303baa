package dev.pushgate.testkit;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * One appliance for a test class: a directory of the class's own, the jar started on
 * {@code dir()/data} with the class's {@code serve} options and the local forge's repositories
 * created, then stopped and the directory removed once the class's tests are done.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ApplianceExtension app = ApplianceExtension.serving("--approval-timeout", "60s")
 *     .withRepos("acme/widget");
 * ...
 * app.get().createRun(json);
 * }</pre>
 *
 * <p>The appliance starts on the first {@link #get()}, not before the class's own
 * {@code @BeforeAll}: a class skipped by an assumption there (no bubblewrap, no gh) starts none.
 * A start that fails fails every test that asks for the appliance, and is not tried again: a
 * class never starts more than its one appliance.
 */
public final class ApplianceExtension
    implements BeforeAllCallback, AfterAllCallback, TestExecutionExceptionHandler {
  /** The appliance log's lines a failing test's message ends with. */
  static final int LOG_LINES_ON_FAILURE = 60;

  private final List<String> serveOptions;
  private final List<String> repos;
  private final boolean sandboxedRuns;
  private final UnaryOperator<RunningAppliance.Builder> options;

  /** The test class the extension serves, by its unique id: a nested class shares it. */
  private String owner;
  private Path dir;
  private RunningAppliance app;
  private Throwable failedStart;

  private ApplianceExtension(List<String> serveOptions, List<String> repos, boolean sandboxedRuns,
      UnaryOperator<RunningAppliance.Builder> options) {
    this.serveOptions = List.copyOf(serveOptions);
    this.repos = List.copyOf(repos);
    this.sandboxedRuns = sandboxedRuns;
    this.options = options;
  }

  /** The appliance on its embedded defaults with these {@code serve} options. */
  public static ApplianceExtension serving(String... serveOptions) {
    return new ApplianceExtension(List.of(serveOptions), List.of(), false, UnaryOperator.identity());
  }

  /** The local forge's repositories created once the appliance has started. */
  public ApplianceExtension withRepos(String... names) {
    return new ApplianceExtension(serveOptions, List.of(names), sandboxedRuns, options);
  }

  /**
   * For runs launched sandboxed: the class's directory is passable (not readable) for the
   * sandbox's own user, which works in directories below it
   * ({@link RunningAppliance#startForSandboxedRuns}).
   */
  public ApplianceExtension forSandboxedRuns() {
    return new ApplianceExtension(serveOptions, repos, true, options);
  }

  /** Further start options (the JVM's, the environment, no deny layer) on the builder. */
  public ApplianceExtension with(UnaryOperator<RunningAppliance.Builder> more) {
    return new ApplianceExtension(serveOptions, repos, sandboxedRuns,
        b -> more.apply(options.apply(b)));
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    if (owner != null) {
      return; // a nested class: the outer class's appliance serves it
    }
    owner = context.getUniqueId();
    // The real path: sandboxed runs bind it, and a symlinked /tmp would name it twice.
    dir = Files.createTempDirectory("pushgate-it-").toRealPath();
    if (sandboxedRuns) {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
    }
  }

  /** The class's own directory: the appliance's data is in {@code data} below it. */
  public Path dir() {
    if (dir == null) {
      throw new IllegalStateException("register the ApplianceExtension with @RegisterExtension"
          + " on a static field: it has no directory outside a test class");
    }
    return dir;
  }

  /** The class's appliance, started on the first call. */
  public synchronized RunningAppliance get() {
    if (failedStart != null) {
      throw new AssertionError("the class's appliance failed to start", failedStart);
    }
    if (app == null) {
      try {
        // Kept before its repositories are made: afterAll closes it even if they fail.
        app = options.apply(RunningAppliance.on(dir().resolve("data")).serve(serveOptions))
            .start();
        if (repos.size() == 1) {
          app.forgeCreate(repos.get(0));
        } else if (!repos.isEmpty()) {
          app.forgeCreate(repos);
        }
      } catch (Exception | AssertionError e) {
        failedStart = e;
        throw new AssertionError("the class's appliance failed to start", e);
      }
    }
    return app;
  }

  /**
   * A failing test's message ends with the appliance log's last lines: CI shows a failure's
   * message, and a test that fails once in many runs is explained only by what the appliance
   * said at the time (it logs no secret: tests grep its log for them).
   */
  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure)
      throws Throwable {
    RunningAppliance running;
    synchronized (this) {
      running = app;
    }
    if (running == null || failure instanceof TestAbortedException) {
      throw failure;
    }
    String tail;
    try {
      List<String> lines = running.logText().lines().toList();
      tail = String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_LINES_ON_FAILURE),
          lines.size()));
    } catch (IOException e) {
      failure.addSuppressed(e);
      throw failure;
    }
    String said = failure.getMessage() != null ? failure.getMessage() : failure.toString();
    AssertionError explained = new AssertionError(said
        + "\n-- the appliance's log, its last " + LOG_LINES_ON_FAILURE + " lines (the whole log "
        + kept(running.log, failure) + ") --\n" + tail, failure);
    explained.setStackTrace(failure.getStackTrace());
    throw explained;
  }

  /**
   * A copy of a failing test's appliance log that outlives the class's directory, which {@link
   * #afterAll} deletes with the log in it; where it is, for the failure's message.
   */
  private static String kept(Path log, Throwable failure) {
    try {
      Path copy = Files.createTempFile("pushgate-it-failed-", ".log");
      Files.copy(log, copy, StandardCopyOption.REPLACE_EXISTING);
      return "kept in " + copy;
    } catch (IOException e) {
      failure.addSuppressed(e);
      return "in " + log + ", deleted with the class's directory";
    }
  }

  @Override
  public synchronized void afterAll(ExtensionContext context) throws Exception {
    if (!context.getUniqueId().equals(owner)) {
      return;
    }
    try {
      if (app != null) {
        app.close();
      }
    } finally {
      app = null;
      failedStart = null;
      owner = null;
      Path done = dir;
      dir = null;
      if (done != null) {
        delete(done);
      }
    }
  }

  /** Removes a tree, making a directory writable where a test left it read-only. */
  private static void delete(Path root) throws IOException {
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs)
          throws IOException {
        if (!Files.isReadable(d) || !Files.isWritable(d) || !Files.isExecutable(d)) {
          Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------"));
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
        Files.delete(f);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
        if (e != null) {
          throw e;
        }
        Files.delete(d);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
