package dev.pushgate.forge;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.io.EOFException;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.util.EnumSet;
import java.util.Enumeration;
import java.util.List;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jgit.http.server.GitServlet;
import org.eclipse.jgit.lib.RepositoryCache;
import org.eclipse.jgit.transport.PreReceiveHookChain;
import org.eclipse.jgit.transport.ReceivePack;
import org.eclipse.jgit.transport.UploadPack;
import org.eclipse.jgit.util.FS;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded upstream used when no GitHub App is configured: bare repositories served over
 * smart HTTP at {@code /forge/<owner>/<name>.git}, and the GitHub API subset at {@code
 * /forge/api/v3} (the App API, the repository REST API {@code gh} uses, GraphQL at {@code
 * /forge/api/v3/graphql}), with GitHub's token semantics. The API base URL is {@code
 * http://<host>:<port>/forge/api/v3}; {@code https://api.github.com/<path>} maps to it plus
 * {@code <path>}.
 */
public final class LocalForge {
  private static final Logger log = LoggerFactory.getLogger(LocalForge.class);
  public static final String CONTEXT_PATH = "/forge";
  public static final String API_PATH = "/api/v3";
  /**
   * Set, by what serves the forge, on every request that came from a sandbox: the forge refuses
   * such a request a receive-pack (a run pushes through the gateway, never to its upstream).
   */
  public static final String FROM_SANDBOX_ATTRIBUTE = LocalForge.class.getName() + ".fromSandbox";

  private final ForgeRepositories repos;
  private final ForgeTokens tokens;
  private final ForgeAppKey appKey;
  private final Clock clock;
  private final ForgeRefUpdates refUpdates = new ForgeRefUpdates();
  private final ForgeRequestLog requestLog = new ForgeRequestLog();
  /** One state for every {@link #handler}: the appliance serves the forge on two servers. */
  private final ForgeCommits commits = new ForgeCommits(refUpdates);
  private final ForgePullRequests pulls;

  public LocalForge(ForgeRepositories repos, ForgeTokens tokens, ForgeAppKey appKey, Clock clock) {
    this.repos = repos;
    this.tokens = tokens;
    this.appKey = appKey;
    this.clock = clock;
    this.pulls = new ForgePullRequests(new ForgePulls(), commits, clock);
  }

  public ForgeAppKey appKey() {
    return appKey;
  }

  /**
   * JGit's servlet logs a push whose sender went away before its end as an internal error, with
   * its stack trace. For a git server that is an ordinary event (the gateway breaks off a
   * streamed push it refused after its pack; GitHub discards the incomplete pack and says
   * nothing), so the forge logs it in a line. Everything else is logged as JGit logs it.
   */
  private static ServletConfig quietAboutBrokenOffPushes(ServletConfig config) {
    ServletContext context = config.getServletContext();
    ServletContext quiet = (ServletContext) Proxy.newProxyInstance(
        LocalForge.class.getClassLoader(), new Class<?>[] {ServletContext.class},
        (proxy, method, args) -> {
          if (method.getName().equals("log") && args != null && args.length == 2
              && args[1] instanceof Throwable t && brokenOff(t)) {
            log.info("a push to the forge broke off before its end; nothing was applied");
            return null;
          }
          try {
            return method.invoke(context, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    return new ServletConfig() {
      @Override
      public String getServletName() {
        return config.getServletName();
      }

      @Override
      public ServletContext getServletContext() {
        return quiet;
      }

      @Override
      public String getInitParameter(String name) {
        return config.getInitParameter(name);
      }

      @Override
      public Enumeration<String> getInitParameterNames() {
        return config.getInitParameterNames();
      }
    };
  }

  private static boolean brokenOff(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof EofException || t instanceof EOFException) {
        return true;
      }
    }
    return false;
  }

  /**
   * A context serving the forge; each call makes a new one, over the same repositories, tokens,
   * pull requests and ref-update observers.
   */
  public ServletContextHandler handler() {
    GitServlet git = new GitServlet() {
      private static final long serialVersionUID = 1L;

      @Override
      public void init(ServletConfig config) throws ServletException {
        super.init(quietAboutBrokenOffPushes(config));
      }
    };
    git.setRepositoryResolver((req, name) -> {
      ForgeRepositories.ForgeRepo repo =
          (ForgeRepositories.ForgeRepo) req.getAttribute(ForgeGitFilter.REPO_ATTRIBUTE);
      if (repo == null) {
        throw new RepositoryNotFoundException(name);
      }
      try {
        // Kept open between requests (JGit's cache, as its own resolver does; the request's end
        // closes only its use): a fresh repository per request read the user's and the system's
        // git config, the pack list and each pack's index again, for every ref list and receive,
        // and a gateway push has the forge serve both. The refs and the pack list are still
        // checked against the files on every request.
        return RepositoryCache.open(RepositoryCache.FileKey.exact(repo.dir().toFile(),
            FS.DETECTED), true);
      } catch (IOException e) {
        throw new RepositoryNotFoundException(name, e);
      }
    });
    git.setUploadPackFactory((req, db) -> {
      // As GitHub: any object of the repository is served by its id, reachable or not (a commit
      // made through the git-data API, a branch since deleted), which is what the gateway
      // fetches to judge a ref moved through the API to such a commit.
      UploadPack up = new UploadPack(db);
      up.setRequestPolicy(UploadPack.RequestPolicy.ANY);
      return up;
    });
    git.setReceivePackFactory((req, db) -> {
      ForgeGitFilter.authorisePush(req);
      ReceivePack rp = new ReceivePack(db);
      rp.setAtomic(true);
      rp.setAllowPushOptions(true);
      rp.setCheckReferencedObjectsAreReachable(true);
      refUpdates.install(rp);
      ForgeTokens.Grant grant = (ForgeTokens.Grant) req.getAttribute(ForgeGitFilter.GRANT_ATTRIBUTE);
      // Before the ref lock: GitHub refuses a workflow change whatever else the push holds.
      rp.setPreReceiveHook(PreReceiveHookChain.newChain(List.of(ForgeWorkflowCheck.forToken(
          grant != null && "write".equals(grant.permissions().get("workflows"))), refUpdates)));
      return rp;
    });
    ServletContextHandler context = new ServletContextHandler(CONTEXT_PATH);
    context.addServlet(new ServletHolder("forge-api",
        new ForgeApiServlet(repos, tokens, appKey, clock,
            new ForgeRepoApi(repos, pulls, commits), new ForgeGraphql(repos, pulls, commits),
            requestLog)), API_PATH + "/*");
    FilterHolder auth = new FilterHolder(
        new ForgeGitFilter(repos, tokens, refUpdates, requestLog, clock));
    context.addFilter(auth, "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(new ServletHolder("forge-git", git), "/*");
    return context;
  }
}
