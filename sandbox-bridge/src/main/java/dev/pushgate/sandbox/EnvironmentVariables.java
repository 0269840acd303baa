package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.pushgate.types.UntrustedText;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * An immutable set of environment variables. A final class rather than a map or record: values
 * include tokens ({@code GH_TOKEN}), so {@link #toString} names the variables, never their values.
 */
public final class EnvironmentVariables {
  private static final EnvironmentVariables EMPTY = new EnvironmentVariables(Map.of());

  private final Map<String, String> vars;

  private EnvironmentVariables(Map<String, String> vars) {
    this.vars = Collections.unmodifiableMap(new LinkedHashMap<>(vars));
  }

  public static EnvironmentVariables empty() {
    return EMPTY;
  }

  /**
   * Variables as given, checked: a name is non-empty, without {@code =} or NUL; a value is
   * non-null, without NUL.
   *
   * @throws IllegalArgumentException naming the variable (never its value)
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static EnvironmentVariables of(Map<String, String> vars) {
    if (vars == null) {
      return EMPTY;
    }
    for (Map.Entry<String, String> e : vars.entrySet()) {
      String problem = problem(e.getKey(), e.getValue());
      if (problem != null) {
        throw new IllegalArgumentException(problem);
      }
    }
    return new EnvironmentVariables(vars);
  }

  /**
   * The host's environment, dropping what no process could be started with (a name with {@code =}
   * or NUL, a NUL in a value) instead of failing on it.
   */
  public static EnvironmentVariables fromHost(Map<String, String> vars) {
    Map<String, String> kept = new LinkedHashMap<>();
    if (vars != null) {
      for (Map.Entry<String, String> e : vars.entrySet()) {
        if (problem(e.getKey(), e.getValue()) == null) {
          kept.put(e.getKey(), e.getValue());
        }
      }
    }
    return new EnvironmentVariables(kept);
  }

  private static String problem(String name, String value) {
    if (name == null || name.isEmpty()) {
      return "an environment variable has no name";
    }
    if (name.indexOf('=') >= 0 || name.indexOf('\0') >= 0) {
      return "environment variable name has = or NUL: " + UntrustedText.printable(name);
    }
    if (value == null) {
      return "environment variable " + UntrustedText.printable(name) + " has no value";
    }
    if (value.indexOf('\0') >= 0) {
      return "environment variable " + UntrustedText.printable(name) + " has a NUL in its value";
    }
    return null;
  }

  @JsonValue
  public Map<String, String> asMap() {
    return vars;
  }

  /** The value, or null when unset. */
  public String get(String name) {
    return vars.get(name);
  }

  public Set<String> names() {
    return vars.keySet();
  }

  public int size() {
    return vars.size();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EnvironmentVariables e && e.vars.equals(vars);
  }

  @Override
  public int hashCode() {
    return vars.hashCode();
  }

  /** Names only: values may be secrets. */
  @Override
  public String toString() {
    return "EnvironmentVariables" + vars.keySet();
  }
}
