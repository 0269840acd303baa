package dev.pushgate.policy;

import java.util.EnumSet;
import java.util.Set;

/**
 * A ref a {@code git push} command line would update, as far as the line says. The ref may hold
 * {@link ShellParser#DYNAMIC} where the line does not name it (a bare {@code git push} updates
 * {@code refs/heads/} + some branch); a null ref means any ref at all ({@code --mirror}).
 */
record PushTarget(String ref, Set<UpdateKind> kinds) {
  PushTarget {
    kinds = Set.copyOf(EnumSet.copyOf(kinds));
  }

  static final String SOME = String.valueOf(ShellParser.DYNAMIC);

  boolean named() {
    return ref != null && ref.indexOf(ShellParser.DYNAMIC) < 0
        && ref.indexOf(ShellParser.DYNAMIC_NONEMPTY) < 0;
  }
}
