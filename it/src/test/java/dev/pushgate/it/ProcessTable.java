package dev.pushgate.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * One reading of {@code /proc}: every process's parent and command line, as any local user can
 * read them. Processes that end while it is read are left out.
 */
final class ProcessTable {
  /** A process as {@code /proc} shows it; arguments joined with spaces. */
  record Entry(long pid, long parent, String commandLine) {}

  private final Map<Long, Entry> entries;

  private ProcessTable(Map<Long, Entry> entries) {
    this.entries = entries;
  }

  static ProcessTable read() throws IOException {
    Map<Long, Entry> entries = new HashMap<>();
    try (Stream<Path> dirs = Files.list(Path.of("/proc"))) {
      for (Path dir : (Iterable<Path>) dirs::iterator) {
        String name = dir.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          String stat = Files.readString(dir.resolve("stat"), StandardCharsets.ISO_8859_1);
          // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so after the last ')'
          String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          byte[] cmdline = Files.readAllBytes(dir.resolve("cmdline"));
          entries.put(Long.parseLong(name), new Entry(Long.parseLong(name),
              Long.parseLong(rest[1]),
              new String(cmdline, StandardCharsets.UTF_8).replace('\0', ' ').strip()));
        } catch (IOException | RuntimeException ended) {
          // the process ended between the listing and the read
        }
      }
    }
    return new ProcessTable(entries);
  }

  List<Entry> all() {
    return List.copyOf(entries.values());
  }

  /** {@code root} and every process below it, as far as this reading saw them. */
  List<Entry> tree(long root) {
    Map<Long, List<Entry>> children = new HashMap<>();
    for (Entry e : entries.values()) {
      children.computeIfAbsent(e.parent(), k -> new ArrayList<>()).add(e);
    }
    List<Entry> out = new ArrayList<>();
    Deque<Long> todo = new ArrayDeque<>(List.of(root));
    while (!todo.isEmpty()) {
      long pid = todo.pop();
      Entry e = entries.get(pid);
      if (e != null) {
        out.add(e);
      }
      for (Entry child : children.getOrDefault(pid, List.of())) {
        todo.push(child.pid());
      }
    }
    return out;
  }
}
