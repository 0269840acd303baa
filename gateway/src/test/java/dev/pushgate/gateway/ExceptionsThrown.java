package dev.pushgate.gateway;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * The exceptions made while some code runs, as the JVM's flight recorder sees them
 * ({@code jdk.JavaExceptionThrow}: every throwable constructed, caught or not), each as its class
 * name and its stack: for tests that a path costs no exception it does not need.
 */
final class ExceptionsThrown {
  /** One exception: its class and the methods on its stack, innermost first. */
  record Thrown(String type, List<String> frames) {
    /** Whether {@code method} ({@code Class.method}, the class's simple name) is on the stack. */
    boolean through(String method) {
      return frames.contains(method);
    }

    /**
     * Whether it says a file is not there: what a probe for an absent file costs (the native
     * error, the exception made of it, or JGit's own). Not the JVM's own linkage errors, which
     * the first run of a lambda may make.
     */
    boolean missingFile() {
      return MISSING_FILE.contains(type);
    }

    /**
     * Whether JGit made it looking for the user's or the system's git configuration, which the
     * machine running the tests may lack: not the repository's files.
     */
    boolean readingTheUsersGitConfig() {
      return through("SystemReader.getUserConfig");
    }
  }

  private static final Set<String> MISSING_FILE = Set.of(
      "sun.nio.fs.UnixException", "java.nio.file.NoSuchFileException",
      "java.io.FileNotFoundException");

  interface Body {
    void run() throws Exception;
  }

  private ExceptionsThrown() {}

  /** Runs {@code body} and returns the exceptions made meanwhile, by any thread. */
  static List<Thrown> during(Body body) throws Exception {
    Path file = Files.createTempFile("exceptions", ".jfr");
    try (Recording r = new Recording()) {
      r.enable("jdk.JavaExceptionThrow").withStackTrace();
      r.start();
      body.run();
      r.stop();
      r.dump(file);
      List<Thrown> out = new ArrayList<>();
      for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
        List<String> frames = new ArrayList<>();
        for (RecordedFrame f : e.getStackTrace().getFrames()) {
          String type = f.getMethod().getType().getName();
          frames.add(type.substring(type.lastIndexOf('.') + 1) + "." + f.getMethod().getName());
        }
        out.add(new Thrown(e.getClass("thrownClass").getName(), frames));
      }
      return out;
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
