package dev.pushgate.gateway;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;

/**
 * A push's command list as the client sent it, read before its pack: {@code <old> <new> <ref>}
 * lines, the first with the client's capabilities after a NUL. Decisions taken this early (refuse
 * without the pack, stream the pack upstream) are only taken on a list that is well formed; JGit
 * answers anything else.
 */
record CommandList(List<Command> commands, Set<String> capabilities) {
  /** One command line. */
  record Command(ObjectId oldId, ObjectId newId, String ref) {
    boolean creates() {
      return oldId.equals(ObjectId.zeroId());
    }

    boolean deletes() {
      return newId.equals(ObjectId.zeroId());
    }
  }

  /**
   * The list, when every line is well formed: two ids and a valid name under {@code refs/},
   * capabilities on the first line only, and at least one command.
   */
  static Optional<CommandList> parse(List<String> lines) {
    List<Command> commands = new ArrayList<>();
    Set<String> capabilities = new TreeSet<>();
    for (int n = 0; n < lines.size(); n++) {
      String line = lines.get(n);
      if (line.endsWith("\n")) {
        line = line.substring(0, line.length() - 1);
      }
      int nul = line.indexOf('\0');
      if (nul >= 0) {
        if (n > 0) {
          return Optional.empty();
        }
        capabilities.addAll(Arrays.asList(line.substring(nul + 1).split(" ")));
        line = line.substring(0, nul);
      }
      String[] parts = line.split(" ", -1);
      if (parts.length != 3 || !ObjectId.isId(parts[0]) || !ObjectId.isId(parts[1])
          || !parts[2].startsWith("refs/") || !Repository.isValidRefName(parts[2])) {
        return Optional.empty();
      }
      commands.add(new Command(ObjectId.fromString(parts[0]), ObjectId.fromString(parts[1]),
          parts[2]));
    }
    if (commands.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new CommandList(List.copyOf(commands), Set.copyOf(capabilities)));
  }
}
