package dev.pushgate.forge;

import dev.pushgate.gateway.EmptyRepositoryFiles;
import dev.pushgate.types.RepoSlug;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.lib.TreeFormatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local forge's repositories: bare repositories at {@code <root>/<owner>/<name>.git}, each
 * with an immutable numeric id, as GitHub gives every repository one.
 */
public final class ForgeRepositories {
  private static final Logger log = LoggerFactory.getLogger(ForgeRepositories.class);
  /** A repository found on the forge. */
  public record ForgeRepo(RepoSlug slug, long id, Path dir) {}


  private final Path root;
  private final ForgeRepositoryIds ids = new ForgeRepositoryIds();

  public ForgeRepositories(Path root) {
    this.root = root;
  }

  public Path root() {
    return root;
  }

  /**
   * Creates a bare repository with one commit on {@code main} holding a README. Fails when it
   * exists already.
   */
  public ForgeRepo create(RepoSlug slug) throws IOException {
    List<ForgeRepo> existing = spellingsOf(slug);
    if (!existing.isEmpty()) {
      throw new IOException("repository " + slug + " already exists on the local forge as "
          + existing.get(0).slug() + " (names are compared without regard to case, as on"
          + " GitHub)");
    }
    Path dir = dirOf(slug);
    Files.createDirectories(dir.getParent());
    long id = 1 + new SecureRandom().nextInt(Integer.MAX_VALUE - 1);
    try (Repository repo = new FileRepository(dir.toFile())) {
      repo.create(true);
      StoredConfig config = repo.getConfig();
      config.setLong(ForgeRepositoryIds.SECTION, null, ForgeRepositoryIds.ID_KEY, id);
      config.setBoolean("http", null, "receivepack", true);
      config.save();
      RefUpdate head = repo.getRefDatabase().newUpdate(Constants.HEAD, false);
      head.link(Constants.R_HEADS + "main");
      commitReadme(repo, slug);
    }
    EmptyRepositoryFiles.write(dir);
    return new ForgeRepo(slug, id, dir);
  }

  /**
   * The repository {@code slug} names, in any case of its letters, as GitHub finds it; its slug
   * is spelled as it was created. Two repositories whose names differ only in case (a data
   * directory from before the forge refused the second) are ambiguous: neither is found, so no
   * token, push or fetch can be bound to the wrong one.
   */
  public Optional<ForgeRepo> find(RepoSlug slug) {
    List<ForgeRepo> found = spellingsOf(slug);
    if (found.size() > 1) {
      log.warn("local forge: {} repositories are named {} but for case ({}); none is served until"
          + " all but one are removed", found.size(), slug,
          found.stream().map(r -> r.slug().toString()).toList());
      return Optional.empty();
    }
    return found.stream().findFirst();
  }

  /** Every repository whose owner and name equal {@code slug}'s without regard to case. */
  private List<ForgeRepo> spellingsOf(RepoSlug slug) {
    List<ForgeRepo> out = new ArrayList<>();
    for (Path owner : entries(root, slug.owner())) {
      for (Path dir : entries(owner, slug.name() + ".git")) {
        String n = dir.getFileName().toString();
        try {
          open(new RepoSlug(owner.getFileName().toString(), n.substring(0, n.length() - 4)), dir)
              .ifPresent(out::add);
        } catch (IllegalArgumentException ignored) {
          // not a repository the forge made
        }
      }
    }
    return out;
  }

  /** The entries of {@code parent} named {@code name} without regard to case. */
  private static List<Path> entries(Path parent, String name) {
    if (!Files.isDirectory(parent)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(parent)) {
      return s.filter(p -> p.getFileName().toString().equalsIgnoreCase(name)).sorted().toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  private Optional<ForgeRepo> open(RepoSlug slug, Path dir) {
    if (!Files.isRegularFile(dir.resolve("HEAD"))) {
      return Optional.empty();
    }
    // The id is in the repository's own config: that file alone, read again only when it
    // changed. Opening the repository read the user's and the system's git config too, on every
    // request and, for a mint, for each of the installation's repositories.
    OptionalLong id = ids.of(dir);
    return id.isEmpty() ? Optional.empty() : Optional.of(new ForgeRepo(slug, id.getAsLong(), dir));
  }

  /** Every repository on the forge. */
  public List<ForgeRepo> all() {
    return ownedBy(owner -> true);
  }

  /**
   * The repositories of the owner (or owners, spelled apart only by case) the App's installation
   * {@code installationId} is on. Only their repositories are opened: a mint reads this, and
   * opening every repository of every owner to read its id cost each mint as much as the forge
   * held.
   */
  public List<ForgeRepo> ofInstallation(long installationId) {
    return ownedBy(owner -> ForgeAppKey.installationIdOf(owner) == installationId);
  }

  private List<ForgeRepo> ownedBy(java.util.function.Predicate<String> owners) {
    List<ForgeRepo> out = new ArrayList<>();
    if (!Files.isDirectory(root)) {
      return out;
    }
    try (Stream<Path> all = Files.list(root)) {
      for (Path owner : all.filter(p -> owners.test(p.getFileName().toString()))
          .filter(Files::isDirectory).toList()) {
        try (Stream<Path> names = Files.list(owner)) {
          for (Path dir : names.filter(p -> p.getFileName().toString().endsWith(".git")).toList()) {
            String n = dir.getFileName().toString();
            try {
              RepoSlug slug =
                  new RepoSlug(owner.getFileName().toString(), n.substring(0, n.length() - 4));
              open(slug, dir).ifPresent(out::add);
            } catch (IllegalArgumentException ignored) {
              // not a repository the forge made
            }
          }
        }
      }
    } catch (IOException e) {
      return out;
    }
    return out;
  }

  private Path dirOf(RepoSlug slug) {
    return root.resolve(slug.owner()).resolve(slug.name() + ".git");
  }

  private static void commitReadme(Repository repo, RepoSlug slug) throws IOException {
    try (ObjectInserter ins = repo.newObjectInserter()) {
      ObjectId blob = ins.insert(Constants.OBJ_BLOB,
          ("# " + slug.name() + "\n\nCreated on the pushgate local forge.\n")
              .getBytes(StandardCharsets.UTF_8));
      TreeFormatter tree = new TreeFormatter();
      tree.append("README.md", FileMode.REGULAR_FILE, blob);
      ObjectId treeId = ins.insert(tree);
      PersonIdent who = new PersonIdent("pushgate forge", "forge@pushgate.invalid",
          Instant.now(), java.time.ZoneOffset.UTC);
      CommitBuilder commit = new CommitBuilder();
      commit.setTreeId(treeId);
      commit.setAuthor(who);
      commit.setCommitter(who);
      commit.setMessage("Initial commit\n");
      ObjectId commitId = ins.insert(commit);
      ins.flush();
      RefUpdate ru = repo.updateRef(Constants.R_HEADS + "main");
      ru.setNewObjectId(commitId);
      ru.setExpectedOldObjectId(ObjectId.zeroId());
      RefUpdate.Result r = ru.update();
      if (r != RefUpdate.Result.NEW) {
        throw new IOException("could not create main in " + slug + ": " + r);
      }
    }
  }
}
