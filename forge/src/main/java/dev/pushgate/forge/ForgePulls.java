package dev.pushgate.forge;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The pull requests and their comments of the forge's repositories, kept beside each bare
 * repository in {@code pushgate-pulls.json} (written whole, replaced atomically), numbered as
 * GitHub numbers issues and pull requests: from 1, one sequence per repository.
 */
final class ForgePulls {
  static final String FILE = "pushgate-pulls.json";

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

  /** Everything the file holds. */
  record Book(long nextNumber, long nextCommentId, List<Pull> pulls, List<Comment> comments) {
    static Book empty() {
      return new Book(1, 1, List.of(), List.of());
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /** What one repository's requests are kept in, one writer at a time. */
  synchronized Book read(ForgeRepositories.ForgeRepo repo) throws IOException {
    Path file = repo.dir().resolve(FILE);
    if (!Files.exists(file)) {
      return Book.empty();
    }
    return JSON.readValue(file.toFile(), Book.class);
  }

  /** Replaces the book of {@code repo} with what {@code change} makes of it. */
  synchronized Book change(ForgeRepositories.ForgeRepo repo, UnaryOperator<Book> change)
      throws IOException {
    Book next = change.apply(read(repo));
    Path file = repo.dir().resolve(FILE);
    Path tmp = repo.dir().resolve(FILE + ".tmp");
    JSON.writeValue(tmp.toFile(), next);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return next;
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

  Comment comment(ForgeRepositories.ForgeRepo repo, long issue, String body, String author,
      Instant now) throws IOException {
    Comment[] made = new Comment[1];
    change(repo, b -> {
      made[0] = new Comment(b.nextCommentId(), issue, body, author, now.toString());
      List<Comment> comments = new ArrayList<>(b.comments());
      comments.add(made[0]);
      return new Book(b.nextNumber(), b.nextCommentId() + 1, b.pulls(), comments);
    });
    return made[0];
  }

  List<Comment> comments(ForgeRepositories.ForgeRepo repo, long issue) throws IOException {
    return read(repo).comments().stream().filter(c -> c.issue() == issue).toList();
  }
}
