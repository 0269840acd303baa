package dev.pushgate.appliance.forge;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jgit.http.server.GitServlet;
import org.eclipse.jgit.http.server.ReceivePackErrorHandler;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.transport.ReceivePack;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded upstream used when no GitHub App is configured: bare repositories served over
 * smart HTTP at {@code /forge/<owner>/<name>.git}, and the GitHub App API subset at {@code
 * /forge/api/v3}, with GitHub's token semantics.
 */
public final class LocalForge {
  private static final Logger log = LoggerFactory.getLogger(LocalForge.class);
  public static final String CONTEXT_PATH = "/forge";
  public static final String API_PATH = "/api/v3";

  private final ForgeRepositories repos;
  private final ForgeTokens tokens;
  private final ForgeAppKey appKey;
  private final Clock clock;
  private final ForgeRefUpdates refUpdates = new ForgeRefUpdates();

  public LocalForge(ForgeRepositories repos, ForgeTokens tokens, ForgeAppKey appKey, Clock clock) {
    this.repos = repos;
    this.tokens = tokens;
    this.appKey = appKey;
    this.clock = clock;
  }

  public ForgeAppKey appKey() {
    return appKey;
  }

  /**
   * A push whose sender went away before its end (the gateway breaks off a streamed push it
   * refused after its pack) is an ordinary event for a git server, logged in a line: GitHub
   * discards the incomplete pack and says nothing. Anything else goes to JGit's own handling.
   */
  private static void brokenOffQuietly(HttpServletRequest req, HttpServletResponse rsp,
      ReceivePackErrorHandler.ReceivePackRunnable r) throws IOException {
    try {
      r.receive();
    } catch (IOException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof EofException) {
          log.info("a push to {} broke off before its end; nothing was applied",
              req.getPathInfo());
          return;
        }
      }
      throw e;
    }
  }

  public ServletContextHandler handler() {
    GitServlet git = new GitServlet();
    git.setRepositoryResolver((req, name) -> {
      ForgeRepositories.ForgeRepo repo =
          (ForgeRepositories.ForgeRepo) req.getAttribute(ForgeGitFilter.REPO_ATTRIBUTE);
      if (repo == null) {
        throw new RepositoryNotFoundException(name);
      }
      try {
        return new FileRepository(repo.dir().toFile());
      } catch (IOException e) {
        throw new RepositoryNotFoundException(name, e);
      }
    });
    git.setReceivePackFactory((req, db) -> {
      ReceivePack rp = new ReceivePack(db);
      rp.setAtomic(true);
      rp.setAllowPushOptions(true);
      rp.setCheckReferencedObjectsAreReachable(true);
      refUpdates.install(rp);
      return rp;
    });
    git.setReceivePackErrorHandler(LocalForge::brokenOffQuietly);
    ServletContextHandler context = new ServletContextHandler(CONTEXT_PATH);
    context.addServlet(new ServletHolder("forge-api",
        new ForgeApiServlet(repos, tokens, appKey, clock)), API_PATH + "/*");
    FilterHolder auth = new FilterHolder(new ForgeGitFilter(repos, tokens, refUpdates));
    context.addFilter(auth, "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(new ServletHolder("forge-git", git), "/*");
    return context;
  }
}
