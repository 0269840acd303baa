package dev.pushgate.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Numbered steps told one after the other, each ending in {@code ✔} and what it showed, or in
 * {@code ✘} and what went wrong. The first step that goes wrong ends the story: later steps build
 * on earlier ones.
 */
public final class Story {
  /** One step: prints what it does and returns what it showed, or throws {@link Failed}. */
  @FunctionalInterface
  interface Step {
    String run() throws Exception;
  }

  /** A step that did not behave as described; the message says how. */
  static final class Failed extends Exception {
    Failed(String why) {
      super(why);
    }
  }

  /** Where the story ended: every step passed, or the first one that did not. */
  public record Outcome(int steps, int failedStep, String failedTitle, String why) {
    public boolean passed() {
      return failedStep == 0;
    }
  }

  private record Chapter(String title, Step step) {}

  private final PrintStream out;
  private final Function<Throwable, String> failure;
  private final List<Chapter> chapters = new ArrayList<>();

  /** {@code failure} words an unexpected exception for the reader (plain, redacted). */
  Story(PrintStream out, Function<Throwable, String> failure) {
    this.out = Objects.requireNonNull(out, "out");
    this.failure = Objects.requireNonNull(failure, "failure");
  }

  Story step(String title, Step step) {
    chapters.add(new Chapter(Objects.requireNonNull(title, "title"), step));
    return this;
  }

  /** Tells every step until one fails, then the verdict. */
  Outcome tell() {
    for (int i = 0; i < chapters.size(); i++) {
      Chapter c = chapters.get(i);
      out.printf("%2d. %s%n", i + 1, c.title());
      String why;
      try {
        out.println("    \u2714 " + c.step().run());
        out.println();
        continue;
      } catch (Failed e) {
        why = e.getMessage();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        why = "interrupted";
      } catch (Exception e) {
        why = failure.apply(e);
      }
      out.println("    \u2718 " + why);
      out.println();
      out.printf("\u2718 the demo failed at step %d (%s): %s%n", i + 1, c.title(), why);
      out.flush();
      return new Outcome(chapters.size(), i + 1, c.title(), why);
    }
    out.printf("\u2714 all %d steps behaved as described.%n", chapters.size());
    out.flush();
    return new Outcome(chapters.size(), 0, null, null);
  }

  /** Fails the current step with {@code why} unless {@code condition} holds. */
  static void expect(boolean condition, String why) throws Failed {
    if (!condition) {
      throw new Failed(why);
    }
  }
}
