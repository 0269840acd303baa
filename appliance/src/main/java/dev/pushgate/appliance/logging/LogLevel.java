package dev.pushgate.appliance.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * {@code serve --log-level}: the level of logback's root logger, set at start. The quiet loggers
 * of the shipped configurations (Jetty, JGit, OkHttp, Flyway at WARN) keep their own level.
 */
public final class LogLevel {
  public static final List<String> NAMES = List.of("error", "warn", "info", "debug");

  private LogLevel() {}

  /** {@code name} checked: one of {@link #NAMES}. */
  public static String check(String name) {
    if (name == null || !NAMES.contains(name)) {
      throw new IllegalArgumentException(
          "--log-level takes " + String.join(", ", NAMES) + ", not: " + name);
    }
    return name;
  }

  /** Sets the root logger to {@code name}, when logback is the SLF4J binding. */
  public static void apply(String name) {
    if (LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME) instanceof Logger root) {
      root.setLevel(Level.toLevel(check(name)));
    }
  }
}
