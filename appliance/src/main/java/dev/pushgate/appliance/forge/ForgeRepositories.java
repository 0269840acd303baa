package dev.pushgate.appliance.forge;

import dev.pushgate.broker.RepoSlug;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Optional;
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

/**
 * The local forge's repositories: bare repositories at {@code <root>/<owner>/<name>.git}, each
 * with an immutable numeric id, as GitHub gives every repository one.
 */
public final class ForgeRepositories {
  /** A repository found on the forge. */
  public record ForgeRepo(RepoSlug slug, long id, Path dir) {}

  private static final String SECTION = "pushgate";
  private static final String ID_KEY = "repositoryId";

  private final Path root;

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
    if (find(slug).isPresent()) {
      throw new IOException("repository " + slug + " already exists on the local forge");
    }
    Path dir = dirOf(slug);
    Files.createDirectories(dir.getParent());
    long id = 1 + new SecureRandom().nextInt(Integer.MAX_VALUE - 1);
    try (Repository repo = new FileRepository(dir.toFile())) {
      repo.create(true);
      StoredConfig config = repo.getConfig();
      config.setLong(SECTION, null, ID_KEY, id);
      config.setBoolean("http", null, "receivepack", true);
      config.save();
      RefUpdate head = repo.getRefDatabase().newUpdate(Constants.HEAD, false);
      head.link(Constants.R_HEADS + "main");
      commitReadme(repo, slug);
    }
    return new ForgeRepo(slug, id, dir);
  }

  public Optional<ForgeRepo> find(RepoSlug slug) {
    Path dir = dirOf(slug);
    if (!Files.isRegularFile(dir.resolve("HEAD"))) {
      return Optional.empty();
    }
    try (Repository repo = new FileRepository(dir.toFile())) {
      long id = repo.getConfig().getLong(SECTION, null, ID_KEY, 0);
      return id == 0 ? Optional.empty() : Optional.of(new ForgeRepo(slug, id, dir));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Every repository on the forge. */
  public java.util.List<ForgeRepo> all() {
    java.util.List<ForgeRepo> out = new java.util.ArrayList<>();
    if (!Files.isDirectory(root)) {
      return out;
    }
    try (java.util.stream.Stream<Path> owners = Files.list(root)) {
      for (Path owner : owners.filter(Files::isDirectory).toList()) {
        try (java.util.stream.Stream<Path> names = Files.list(owner)) {
          for (Path dir : names.filter(p -> p.getFileName().toString().endsWith(".git")).toList()) {
            String n = dir.getFileName().toString();
            try {
              find(new RepoSlug(owner.getFileName().toString(), n.substring(0, n.length() - 4)))
                  .ifPresent(out::add);
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
