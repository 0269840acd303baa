package dev.pushgate.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The command line of a bench that runs on its own ({@code bench/api}, {@code bench/crowd},
 * {@code bench/idle-runs}, {@code bench/wan}): {@code --jar JAR} (required), {@code --keep}, and
 * the bench's own options, each taking one value. Anything else is refused with the usage.
 */
final class StandaloneArgs {
  private final Path jar;
  private final boolean keep;
  private final Map<String, String> values;

  private StandaloneArgs(Path jar, boolean keep, Map<String, String> values) {
    this.jar = jar;
    this.keep = keep;
    this.values = values;
  }

  /** Reads {@code args}; {@code options} are the bench's own, {@code usage} names them all. */
  static StandaloneArgs parse(String[] args, String usage, String... options) {
    List<String> known = List.of(options);
    Path jar = null;
    boolean keep = false;
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--jar")) {
        jar = Path.of(args[++i]);
      } else if (a.equals("--keep")) {
        keep = true;
      } else if (known.contains(a)) {
        values.put(a, args[++i]);
      } else {
        throw new IllegalArgumentException("unknown option " + a + " (" + usage + ")");
      }
    }
    if (jar == null) {
      throw new IllegalArgumentException("--jar JAR is required");
    }
    return new StandaloneArgs(jar, keep, values);
  }

  /** The appliance jar under test. */
  Path jar() {
    return jar;
  }

  /** {@code option}'s value read by {@code parse}, or {@code otherwise} when it was not given. */
  <T> T get(String option, Function<String, T> parse, T otherwise) {
    String v = values.get(option);
    return v == null ? otherwise : parse.apply(v);
  }

  /** {@code option}'s value as an absolute path; null when it was not given. */
  Path path(String option) {
    return get(option, v -> Path.of(v).toAbsolutePath(), null);
  }

  /** What a bench does in its scratch directory. */
  interface InScratch {
    void run(Path work) throws Exception;
  }

  /**
   * Runs {@code body} in a new scratch directory named after {@code prefix}, then deletes it, or
   * with {@code --keep} says where it is.
   */
  void inScratch(String prefix, InScratch body) throws Exception {
    Path work = Files.createTempDirectory(prefix);
    try {
      body.run(work);
    } finally {
      if (keep) {
        System.err.println("bench: scratch directory kept at " + work);
      } else {
        Platform.deleteTree(work);
      }
    }
  }
}
