package dev.pushgate.forge;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The pull requests and their comments of the forge's repositories, kept beside each bare
 * repository, numbered as GitHub numbers issues and pull requests: from 1, one sequence per
 * repository. The pull requests are in {@code pushgate-pulls.json} (written whole, replaced
 * atomically); the comments are appended to {@code pushgate-comments.jsonl}, one JSON object a
 * line, so that a comment's write costs the same with ten or ten thousand before it (the file of pull
 * requests held them too until 2026-12-07, and is read with them). What was read or written last
 * is kept, and read again when either file changed beside the forge.
 */
final class ForgePulls {
  static final String FILE = "pushgate-pulls.json";
  static final String COMMENTS = "pushgate-comments.jsonl";

  /** A pull request. {@code mergeCommit} is set once merged. */
  record Pull(long number, String title, String body, String head, String base, String state,
      String mergeCommit, String author, String createdAt, String updatedAt, String mergedAt) {
    boolean open() {
      return "open".equals(state);
    }

    Pull merged(String commit, Instant at) {
      return new Pull(number, title, body, head, base, "closed", commit, author, createdAt,
          at.toString(), at.toString());
    }
  }

  /** A comment on a pull request's conversation (an issue comment, as GitHub has it). */
  record Comment(long id, long issue, String body, String author, String createdAt) {}

  /**
   * What {@link #FILE} holds; read, its {@code comments} are every comment of the repository,
   * the appended ones after those the file held itself.
   */
  record Book(long nextNumber, long nextCommentId, List<Pull> pulls, List<Comment> comments) {
    static Book empty() {
      return new Book(1, 1, List.of(), List.of());
    }
  }

  /** One repository's book as read or written last, and the two files' state then. */
  private record Loaded(Book file, Book whole, List<Object> stamps) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<Path, Loaded> loaded = new HashMap<>();

  /** Every pull request and comment of {@code repo}. */
  synchronized Book read(ForgeRepositories.ForgeRepo repo) throws IOException {
    return load(repo.dir()).whole();
  }

  /** Replaces the pull requests of {@code repo} with what {@code change} makes of them. */
  synchronized Book change(ForgeRepositories.ForgeRepo repo, UnaryOperator<Book> change)
      throws IOException {
    Path dir = repo.dir();
    Loaded before = load(dir);
    Book changed = change.apply(before.whole());
    // The file keeps the comments it held; the appended ones stay appended.
    Book file = new Book(changed.nextNumber(), before.file().nextCommentId(), changed.pulls(),
        before.file().comments());
    Path tmp = dir.resolve(FILE + ".tmp");
    JSON.writeValue(tmp.toFile(), file);
    Files.move(tmp, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
    Book whole = new Book(changed.nextNumber(), before.whole().nextCommentId(), changed.pulls(),
        before.whole().comments());
    loaded.put(dir, new Loaded(file, whole, stamps(dir)));
    return whole;
  }

  Optional<Pull> pull(ForgeRepositories.ForgeRepo repo, long number) throws IOException {
    return read(repo).pulls().stream().filter(p -> p.number() == number).findFirst();
  }

  /** Adds a pull request under the next number; returns it. */
  Pull open(ForgeRepositories.ForgeRepo repo, String title, String body, String head,
      String base, String author, Instant now) throws IOException {
    Pull[] made = new Pull[1];
    change(repo, b -> {
      made[0] = new Pull(b.nextNumber(), title, body, head, base, "open", null, author,
          now.toString(), now.toString(), null);
      List<Pull> pulls = new ArrayList<>(b.pulls());
      pulls.add(made[0]);
      return new Book(b.nextNumber() + 1, b.nextCommentId(), pulls, b.comments());
    });
    return made[0];
  }

  void replace(ForgeRepositories.ForgeRepo repo, Pull pull) throws IOException {
    change(repo, b -> new Book(b.nextNumber(), b.nextCommentId(), b.pulls().stream()
        .map(p -> p.number() == pull.number() ? pull : p).toList(), b.comments()));
  }

  /** Appends a comment on {@code issue} under the next comment id; returns it. */
  synchronized Comment comment(ForgeRepositories.ForgeRepo repo, long issue, String body,
      String author, Instant now) throws IOException {
    Path dir = repo.dir();
    Loaded before = load(dir);
    Comment made = new Comment(before.whole().nextCommentId(), issue, body, author,
        now.toString());
    byte[] line = (JSON.writeValueAsString(made) + "\n").getBytes(StandardCharsets.UTF_8);
    Files.write(dir.resolve(COMMENTS), line, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    List<Comment> comments = new ArrayList<>(before.whole().comments().size() + 1);
    comments.addAll(before.whole().comments());
    comments.add(made);
    Book whole = new Book(before.whole().nextNumber(), made.id() + 1, before.whole().pulls(),
        Collections.unmodifiableList(comments));
    loaded.put(dir, new Loaded(before.file(), whole, stamps(dir)));
    return made;
  }

  List<Comment> comments(ForgeRepositories.ForgeRepo repo, long issue) throws IOException {
    return read(repo).comments().stream().filter(c -> c.issue() == issue).toList();
  }

  /** The book of {@code dir} as kept, or read again when a file changed since. */
  private Loaded load(Path dir) throws IOException {
    List<Object> stamps = stamps(dir);
    Loaded kept = loaded.get(dir);
    if (kept != null && kept.stamps().equals(stamps)) {
      return kept;
    }
    Path file = dir.resolve(FILE);
    Book book = Files.exists(file) ? JSON.readValue(file.toFile(), Book.class) : Book.empty();
    List<Comment> comments = new ArrayList<>(book.comments());
    long next = book.nextCommentId();
    for (Comment c : appended(dir.resolve(COMMENTS))) {
      comments.add(c);
      next = Math.max(next, c.id() + 1);
    }
    // The stamps from before the read: a file changed meanwhile is read again next time.
    Loaded read = new Loaded(book, new Book(book.nextNumber(), next, book.pulls(),
        Collections.unmodifiableList(comments)), stamps);
    loaded.put(dir, read);
    return read;
  }

  /**
   * The comments appended to {@code file}. A last line without its newline is a write the
   * forge did not finish (it stopped mid-append): it is cut off, so that the next comment starts
   * a line of its own.
   */
  private static List<Comment> appended(Path file) throws IOException {
    byte[] all;
    try {
      all = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return List.of();
    }
    int end = all.length;
    while (end > 0 && all[end - 1] != '\n') {
      end--;
    }
    if (end < all.length) {
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
        ch.truncate(end);
      }
    }
    List<Comment> comments = new ArrayList<>();
    int from = 0;
    for (int i = 0; i < end; i++) {
      if (all[i] == '\n') {
        comments.add(JSON.readValue(all, from, i - from, Comment.class));
        from = i + 1;
      }
    }
    return comments;
  }

  /** What tells whether the two files changed: each one's identity, size and time, or absence. */
  private static List<Object> stamps(Path dir) throws IOException {
    return List.of(stamp(dir.resolve(FILE)), stamp(dir.resolve(COMMENTS)));
  }

  private static Object stamp(Path file) throws IOException {
    try {
      BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
      return List.of(Objects.toString(a.fileKey()), a.size(), a.lastModifiedTime());
    } catch (NoSuchFileException e) {
      return "absent";
    }
  }
}
