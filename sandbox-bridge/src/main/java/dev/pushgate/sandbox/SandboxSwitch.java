package dev.pushgate.sandbox;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.pushgate.types.UntrustedText;
import java.util.Locale;

/**
 * {@code --sandbox on|off} / {@code CC_SERVER_SANDBOX}. An opt-out, not an opt-in: {@code on}
 * means "wrap when the host offers a backend", never "require one".
 */
public enum SandboxSwitch {
  ON,
  OFF;

  /** The environment variable read when the flag is absent. */
  public static final String ENV = "CC_SERVER_SANDBOX";

  /** The command-line flag. */
  public static final String FLAG = "--sandbox";

  /**
   * What every line says of a switched-off sandbox. The setting may come from the flag, from
   * {@code PUSHGATE_SANDBOX} (the container image sets it) or from the configuration file: the
   * line names them all and where to look, never one that may not be the one.
   */
  public static final String DISABLED = "agent sandbox DISABLED by the sandbox setting off"
      + " (--sandbox, PUSHGATE_SANDBOX or the config file; pushgate config check says which)";

  /**
   * The start-up line of a switched-off sandbox, naming the one place the setting came from
   * ({@code --sandbox off}, {@code PUSHGATE_SANDBOX=off}, {@code sandbox: off in FILE}, {@code
   * CC_SERVER_SANDBOX=off}); {@link #DISABLED}, which names them all, when it is not known.
   */
  public static String disabledBy(String source) {
    return source == null ? DISABLED : "agent sandbox DISABLED by " + source;
  }

  @JsonValue
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The switch from the flag's value (null when the flag was not given) and the environment
   * variable's value (null or empty when unset). The flag wins; neither means {@link #ON}.
   *
   * @throws IllegalArgumentException when a value is neither {@code on} nor {@code off}
   */
  public static SandboxSwitch resolve(String flagValue, String envValue) {
    if (flagValue != null) {
      return parse(flagValue, FLAG);
    }
    if (envValue != null && !envValue.isEmpty()) {
      return parse(envValue, ENV);
    }
    return ON;
  }

  private static SandboxSwitch parse(String value, String source) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (v.equals("on")) {
      return ON;
    }
    if (v.equals("off")) {
      return OFF;
    }
    // YAML 1.1 reads an unquoted on or off as a boolean, which reaches here as true or false.
    String yaml = source.equals(FLAG) && (v.equals("true") || v.equals("false"))
        ? " (in a YAML configuration file an unquoted on or off is read as true or false: write"
            + " sandbox: \"" + (v.equals("true") ? "on" : "off") + "\")" : "";
    throw new IllegalArgumentException(
        source + " takes on or off, not: " + UntrustedText.printable(value) + yaml);
  }
}
