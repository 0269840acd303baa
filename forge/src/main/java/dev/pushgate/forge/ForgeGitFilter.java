package dev.pushgate.forge;

import dev.pushgate.gateway.LiteralGitPath;
import dev.pushgate.types.RepoSlug;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Base64;
import java.util.Optional;
import org.eclipse.jgit.transport.resolver.ServiceNotEnabledException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GitHub's token semantics in front of the forge's git endpoints: HTTP Basic with an installation
 * token as the password; a read token fetches, only a write token pushes.
 */
final class ForgeGitFilter implements Filter {
  private static final Logger log = LoggerFactory.getLogger(ForgeGitFilter.class);
  static final String REPO_ATTRIBUTE = ForgeRepositories.ForgeRepo.class.getName();
  static final String GRANT_ATTRIBUTE = ForgeTokens.Grant.class.getName();
  static final String WRITE_NOT_GRANTED = "Write access to repository not granted.";

  private final ForgeRepositories repos;
  private final ForgeTokens tokens;
  private final ForgeRefUpdates refUpdates;

  private final ForgeRequestLog requestLog;
  private final Clock clock;

  ForgeGitFilter(ForgeRepositories repos, ForgeTokens tokens, ForgeRefUpdates refUpdates,
      ForgeRequestLog requestLog, Clock clock) {
    this.repos = repos;
    this.tokens = tokens;
    this.refUpdates = refUpdates;
    this.requestLog = requestLog;
    this.clock = clock;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest req = (HttpServletRequest) request;
    HttpServletResponse rsp = (HttpServletResponse) response;
    if (LocalForge.API_PATH.equals(req.getServletPath())) {
      chain.doFilter(request, response); // the App API authenticates by itself
      return;
    }
    String password = passwordOf(req);
    boolean[] live = new boolean[1];
    try {
      filter(req, rsp, chain, password, live);
    } finally {
      // git's requests in the request log too, as "git <path>": which token fetched or pushed
      requestLog.add(new ForgeRequestLog.Entry(clock.instant(), req.getMethod(),
          "git " + req.getPathInfo(),
          password == null ? "none" : live[0] ? "installation-token" : "unknown-token",
          password == null ? null : ForgeTokens.hash(password), rsp.getStatus()));
    }
  }

  private void filter(HttpServletRequest req, HttpServletResponse rsp, FilterChain chain,
      String password, boolean[] live) throws IOException, ServletException {
    Optional<String> notLiteral = LiteralGitPath.problem(req);
    if (notLiteral.isPresent()) {
      text(rsp, 400, "Bad request: " + notLiteral.get());
      return;
    }
    Optional<ForgeRepositories.ForgeRepo> repo = repoOf(req.getPathInfo());
    Optional<ForgeTokens.Grant> grant;
    try {
      grant = tokens.check(password);
      live[0] = grant.isPresent();
    } catch (SQLException e) {
      log.error("local forge cannot read its tokens", e);
      rsp.sendError(500);
      return;
    }
    if (grant.isEmpty()) {
      rsp.setHeader("WWW-Authenticate", "Basic realm=\"pushgate local forge\"");
      text(rsp, 401, "Invalid username or token. Password authentication is not supported"
          + " for Git operations.");
      return;
    }
    // Like GitHub, a repository the token cannot see does not exist.
    if (repo.isEmpty() || !grant.get().canRead(repo.get().id())) {
      text(rsp, 404, "Repository not found.");
      return;
    }
    // GitHub's answer to a push the token may not make, before JGit starts. It is a courtesy,
    // not the check: authorisePush decides where JGit creates the receive-pack, whatever the
    // path looked like.
    boolean push = req.getPathInfo().endsWith("/git-receive-pack")
        || "git-receive-pack".equals(req.getParameter("service"));
    if (push && !grant.get().canWrite(repo.get().id())) {
      text(rsp, 403, WRITE_NOT_GRANTED);
      return;
    }
    if (ForgeLsRefs.isV2UploadPack(req)) {
      ForgeLsRefs.answer(req, rsp, repo.get().dir());
      return;
    }
    req.setAttribute(REPO_ATTRIBUTE, repo.get());
    req.setAttribute(GRANT_ATTRIBUTE, grant.get());
    try {
      chain.doFilter(req, rsp);
    } finally {
      refUpdates.release();
    }
  }

  /**
   * Called where JGit creates a receive-pack, for the info/refs advertisement and the push
   * alike: only a token granted {@code contents: write} on this repository gets one, and never
   * over a sandbox's socket (a run pushes through the gateway, not to its upstream).
   */
  static void authorisePush(HttpServletRequest req) throws ServiceNotEnabledException {
    ForgeRepositories.ForgeRepo repo =
        (ForgeRepositories.ForgeRepo) req.getAttribute(REPO_ATTRIBUTE);
    ForgeTokens.Grant grant = (ForgeTokens.Grant) req.getAttribute(GRANT_ATTRIBUTE);
    if (repo == null || grant == null || !grant.canWrite(repo.id())) {
      throw new ServiceNotEnabledException(WRITE_NOT_GRANTED);
    }
    if (req.getAttribute(LocalForge.FROM_SANDBOX_ATTRIBUTE) != null) {
      throw new ServiceNotEnabledException(
          "The local forge takes no pushes from a sandbox; push through the gateway.");
    }
  }

  private Optional<ForgeRepositories.ForgeRepo> repoOf(String pathInfo) {
    if (pathInfo == null) {
      return Optional.empty();
    }
    String[] parts = pathInfo.split("/");
    // "", owner, name[.git], then the smart-HTTP suffix
    if (parts.length < 4) {
      return Optional.empty();
    }
    try {
      return repos.find(RepoSlug.parse(parts[1] + "/" + parts[2]));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static String passwordOf(HttpServletRequest req) {
    String auth = req.getHeader("Authorization");
    if (auth == null || !auth.regionMatches(true, 0, "Basic ", 0, 6)) {
      return null;
    }
    try {
      String decoded = new String(Base64.getDecoder().decode(auth.substring(6).strip()),
          StandardCharsets.UTF_8);
      int colon = decoded.indexOf(':');
      return colon < 0 ? null : decoded.substring(colon + 1);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static void text(HttpServletResponse rsp, int status, String message) throws IOException {
    rsp.setStatus(status);
    rsp.setContentType("text/plain; charset=UTF-8");
    rsp.getOutputStream().write((message + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
