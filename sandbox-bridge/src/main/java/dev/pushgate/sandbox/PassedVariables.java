package dev.pushgate.sandbox;

import dev.pushgate.types.UntrustedText;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The names of launcher variables the operator lets through to runs on top of the basics (see
 * {@link EnvironmentSanitiser#basic}): an API key an agent needs, for instance. Only names the
 * operator wrote down pass; a name that loads code into every process ({@code LD_PRELOAD}, {@code
 * NODE_OPTIONS}, …) or hands over the host's git credentials can never be passed.
 */
public final class PassedVariables {
  public static final PassedVariables NONE = new PassedVariables(Set.of());

  private static final Pattern SHELL_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private final Set<String> names;

  private PassedVariables(Set<String> names) {
    this.names = Set.copyOf(names);
  }

  /**
   * The names as given, checked.
   *
   * @throws IllegalArgumentException naming the first name that cannot be passed, and why
   */
  public static PassedVariables of(Collection<String> names) {
    if (names == null || names.isEmpty()) {
      return NONE;
    }
    Set<String> out = new LinkedHashSet<>();
    for (String n : names) {
      String name = n == null ? "" : n.strip();
      if (name.isEmpty()) {
        continue;
      }
      if (!SHELL_NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("cannot pass the variable " + UntrustedText.printable(name)
            + " to runs: a name is letters, digits and _, not starting with a digit");
      }
      if (EnvironmentSanitiser.removes(name)) {
        throw new IllegalArgumentException("cannot pass the variable " + name + " to runs: it"
            + " injects code into the run's processes or carries the host's git credentials");
      }
      out.add(name);
    }
    return new PassedVariables(out);
  }

  public boolean contains(String name) {
    return names.contains(name);
  }

  public Set<String> names() {
    return names;
  }

  @Override
  public String toString() {
    return "PassedVariables" + names;
  }
}
