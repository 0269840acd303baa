package dev.pushgate.broker;

import dev.pushgate.types.UntrustedText;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.broker.BrokerException.Reason;
import dev.pushgate.broker.GitHubRest.Method;
import dev.pushgate.broker.TokenGrant.GrantedRepository;
import dev.pushgate.types.RepoSlug;
import dev.pushgate.types.Secret;
import java.io.IOException;
import java.security.interfaces.RSAPrivateKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GitHub App credential broker: finds the App's installation for a repository, issues
 * installation tokens bound to that one repository with exactly the permissions asked, and revokes
 * them. Every token GitHub hands back is checked against the ask; one that grants more is revoked
 * at once and never returned. Thread-safe; one instance per App.
 */
public final class GitHubApp {
  private static final Logger log = LoggerFactory.getLogger(GitHubApp.class);

  private static final String INSTALL_HINT =
      "install the App on the repository or its owner, then try again";
  /** Below this a skew is noise; above it, it may well be why GitHub refused the JWT. */
  private static final Duration NOTABLE_SKEW = Duration.ofSeconds(30);

  private final GitHubAppConfig config;
  private final AppJwt jwt;
  private final GitHubRest rest;
  private final InstallationCache installations;
  private final Clock clock;
  private final ObjectMapper json = new ObjectMapper();

  private GitHubApp(GitHubAppConfig config, AppJwt jwt, OkHttpClient http, Clock clock,
      Sleeper sleeper) {
    this.config = config;
    this.jwt = jwt;
    this.clock = clock;
    this.rest = new GitHubRest(config, http, clock, sleeper, json);
    this.installations = new InstallationCache(clock);
  }

  /** Loads the App key from {@code config.privateKeyFile()} and waits between retries for real. */
  public static GitHubApp create(GitHubAppConfig config, OkHttpClient http, Clock clock)
      throws BrokerException {
    return create(config, http, clock, Sleeper.SYSTEM);
  }

  /**
   * @param http the appliance's one client; the broker derives its own variant (timeouts) from it
   * @param sleeper how to wait between retries and for rate limits
   */
  public static GitHubApp create(GitHubAppConfig config, OkHttpClient http, Clock clock,
      Sleeper sleeper) throws BrokerException {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(http, "http");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(sleeper, "sleeper");
    RSAPrivateKey key = AppKeyLoader.load(config.privateKeyFile());
    return new GitHubApp(config, new AppJwt(config.appId(), key, clock), http, clock, sleeper);
  }

  public GitHubAppConfig config() {
    return config;
  }

  /**
   * Asks GitHub who the App is ({@code GET /app}): a start-up check that the App ID, the key and
   * this host's clock agree with GitHub.
   */
  public AppIdentity identity() throws BrokerException {
    HttpUrl url = rest.url("app");
    String what = rest.describe(Method.GET, url);
    ApiResponse r = rest.send(Method.GET, url, jwt::token, null);
    if (r.code() == 401) {
      throw jwtRejected(r, what);
    }
    if (r.code() != 200) {
      throw unexpected(r, what);
    }
    JsonNode root = readJson(r, what);
    JsonNode id = root.get("id");
    if (id == null || !id.isIntegralNumber() || id.asLong() <= 0) {
      throw malformed(r, what, "has no App id");
    }
    return new AppIdentity(id.asLong(), UntrustedText.oneLine(root.path("slug").asText(""), 100),
        UntrustedText.oneLine(root.path("name").asText(""), 100));
  }

  /** The id of the App's installation that covers {@code repo}; cached. */
  public long installationId(RepoSlug repo) throws BrokerException {
    Objects.requireNonNull(repo, "repo");
    InstallationCache.Entry cached = installations.get(repo);
    if (cached != null) {
      if (cached.installed()) {
        return cached.installationId();
      }
      throw new BrokerException(Reason.NOT_INSTALLED, cached.missingMessage(), cached.requestId());
    }
    HttpUrl url = rest.url("repos", repo.owner(), repo.name(), "installation");
    String what = rest.describe(Method.GET, url);
    ApiResponse r = rest.send(Method.GET, url, jwt::token, null);
    switch (r.code()) {
      case 200 -> {
        JsonNode root = readJson(r, what);
        JsonNode id = root.get("id");
        if (id == null || !id.isIntegralNumber() || !id.canConvertToLong() || id.asLong() <= 0) {
          throw malformed(r, what, "has no installation id");
        }
        JsonNode suspended = root.get("suspended_at");
        if (suspended != null && !suspended.isNull()) {
          throw new BrokerException(Reason.FORBIDDEN, "the GitHub App's installation on " + repo
              + " is suspended (since " + UntrustedText.oneLine(suspended.asText(), 40) + "): unsuspend it"
              + " in the installation's settings", r.requestId());
        }
        installations.found(repo, id.asLong());
        log.debug("GitHub App installation {} covers {}", id.asLong(), repo);
        return id.asLong();
      }
      case 404 -> {
        String message = "GitHub App is not installed on " + repo + ": " + INSTALL_HINT;
        installations.missing(repo, message, r.requestId());
        throw new BrokerException(Reason.NOT_INSTALLED, message, r.requestId());
      }
      case 401 -> throw jwtRejected(r, what);
      case 403 -> throw new BrokerException(Reason.FORBIDDEN,
          "GitHub refused " + what + " (" + r.status(json) + ")", r.requestId());
      default -> throw unexpected(r, what);
    }
  }

  /**
   * A token for a run: {@code contents: read}, {@code pull_requests: write}, {@code metadata:
   * read}, for {@code repo} only. It cannot push.
   *
   * @param repositoryId the repository's id from an earlier token, to bind by id; empty on first
   *     use, when the broker binds by name and reads the id from GitHub's answer
   */
  public InstallationToken issueReadToken(RepoSlug repo, OptionalLong repositoryId)
      throws BrokerException {
    return issue(repo, repositoryId, Permissions.READ, "read");
  }

  /**
   * A token for the gateway to forward a push: {@code contents: write}, {@code metadata: read},
   * plus {@code workflows: write} when {@code workflows}, for {@code repo} only.
   */
  public InstallationToken issueWriteToken(RepoSlug repo, OptionalLong repositoryId,
      boolean workflows) throws BrokerException {
    return issue(repo, repositoryId, Permissions.write(workflows), "write");
  }

  /**
   * Revokes an installation token ({@code DELETE /installation/token}, authenticated with the
   * token itself). Returns normally when GitHub confirms (204) or the token is already gone (401).
   */
  public void revoke(Secret token) throws BrokerException {
    Objects.requireNonNull(token, "token");
    HttpUrl url = rest.url("installation", "token");
    ApiResponse r = rest.send(Method.DELETE, url, () -> token, null);
    if (r.code() >= 200 && r.code() < 300) {
      log.info("installation token revoked [request id {}]", r.requestId());
    } else if (r.code() == 401) {
      log.info("installation token was already revoked or expired [request id {}]",
          r.requestId());
    } else {
      throw new BrokerException(r.code() == 403 ? Reason.FORBIDDEN : Reason.UPSTREAM_ERROR,
          "GitHub did not revoke the installation token (" + r.status(json) + ")", r.requestId());
    }
  }

  private InstallationToken issue(RepoSlug repo, OptionalLong repositoryId,
      Map<String, String> asked, String kind) throws BrokerException {
    return issue(repo, repositoryId, asked, kind, true);
  }

  /**
   * Mints with the installation id last seen for {@code repo}, without asking GitHub for it
   * again; only when GitHub answers that id with 404 (the App was uninstalled, or installed
   * again under a new id) is the installation looked up again and the mint retried, once
   * ({@code mayLookUpAgain}).
   */
  private InstallationToken issue(RepoSlug repo, OptionalLong repositoryId,
      Map<String, String> asked, String kind, boolean mayLookUpAgain) throws BrokerException {
    Objects.requireNonNull(repo, "repo");
    Objects.requireNonNull(repositoryId, "repositoryId");
    if (repositoryId.isPresent() && repositoryId.getAsLong() <= 0) {
      throw new IllegalArgumentException(
          "repository id must be positive: " + repositoryId.getAsLong());
    }
    OptionalLong seen = installations.lastSeen(repo);
    long installation = seen.isPresent() ? seen.getAsLong() : installationId(repo);
    ObjectNode body = json.createObjectNode();
    if (repositoryId.isPresent()) {
      body.putArray("repository_ids").add(repositoryId.getAsLong());
    } else {
      body.putArray("repositories").add(repo.name());
    }
    ObjectNode permissions = body.putObject("permissions");
    new TreeMap<>(asked).forEach(permissions::put);

    HttpUrl url = rest.url("app", "installations", Long.toString(installation), "access_tokens");
    String what = rest.describe(Method.POST, url);
    ApiResponse r = rest.send(Method.POST, url, jwt::token, bytes(body));
    switch (r.code()) {
      case 200, 201 -> {
        return accept(r, what, repo, repositoryId, asked, kind, installation);
      }
      case 401 -> throw jwtRejected(r, what);
      case 403 -> throw new BrokerException(Reason.FORBIDDEN,
          "GitHub refused a " + kind + " token for " + repo + " (" + r.status(json) + "): check"
              + " that the App's installation grants " + describe(asked) + " on it and is not"
              + " suspended", r.requestId());
      case 404 -> {
        installations.forget(repo);
        if (seen.isPresent() && mayLookUpAgain) {
          log.info("GitHub App installation {} no longer serves {}; looking it up again"
              + " [request id {}]", installation, repo, r.requestId());
          return issue(repo, repositoryId, asked, kind, false);
        }
        throw new BrokerException(Reason.NOT_INSTALLED, "GitHub App installation " + installation
            + " for " + repo + " no longer exists: " + INSTALL_HINT, r.requestId());
      }
      case 422 -> throw new BrokerException(Reason.VALIDATION_FAILED,
          "GitHub rejected the " + kind + " token request for " + repo + " (" + r.status(json)
              + "): check that the App's installation includes the repository and grants "
              + describe(asked), r.requestId());
      default -> throw unexpected(r, what);
    }
  }

  private InstallationToken accept(ApiResponse r, String what, RepoSlug repo,
      OptionalLong repositoryId, Map<String, String> asked, String kind, long installation)
      throws BrokerException {
    TokenGrant grant;
    try {
      grant = TokenGrant.parse(r.body(), json);
    } catch (TokenGrant.Unreadable e) {
      String cleanup = e.token().map(t -> "; " + revokeNow(t)).orElse("");
      throw malformed(r, what, e.getMessage() + cleanup);
    }
    List<String> beyond = new ArrayList<>();
    long id = scope(grant, repo, repositoryId, beyond);
    beyond.addAll(Permissions.excess(asked, grant.permissions()));
    if (!beyond.isEmpty()) {
      throw new BrokerException(Reason.OVER_GRANTED, "GitHub granted a " + kind + " token for "
          + repo + " beyond what was asked (" + String.join("; ", beyond) + "); "
          + revokeNow(grant.token()), r.requestId());
    }
    List<String> shortfall = Permissions.shortfall(asked, grant.permissions());
    if (!shortfall.isEmpty()) {
      throw new BrokerException(Reason.FORBIDDEN, "GitHub granted a " + kind + " token for " + repo
          + " without " + String.join(", ", shortfall) + ": give the App that permission in its"
          + " settings and accept the change on the installation; " + revokeNow(grant.token()),
          r.requestId());
    }
    log.info("issued {} token for {} (repository id {}, installation {}, permissions {},"
            + " expires {}) [request id {}]", kind, repo, id, installation,
        new TreeMap<>(grant.permissions()), grant.expiresAt(), r.requestId());
    return new InstallationToken(grant.token(), grant.expiresAt(), id, grant.permissions());
  }

  /** The one repository the grant covers, or 0 with the reasons it does not, added to beyond. */
  private static long scope(TokenGrant grant, RepoSlug repo, OptionalLong repositoryId,
      List<String> beyond) {
    if ("all".equals(grant.repositorySelection())) {
      beyond.add("it covers all repositories of the installation");
      return 0;
    }
    List<GrantedRepository> repos = grant.repositories();
    if (repos == null) {
      beyond.add("GitHub did not list the token's repositories, so its scope cannot be confirmed");
      return 0;
    }
    if (repos.size() != 1) {
      beyond.add("it covers " + repos.size() + " repositories");
      return 0;
    }
    GrantedRepository only = repos.get(0);
    if (repositoryId.isPresent()) {
      if (only.id() != repositoryId.getAsLong()) {
        beyond.add("it covers repository id " + only.id() + ", not " + repositoryId.getAsLong());
        return 0;
      }
    } else if (!only.name().equalsIgnoreCase(repo.name())
        || only.fullName() != null && !only.fullName().equalsIgnoreCase(repo.toString())) {
      beyond.add("it covers " + UntrustedText.oneLine(only.fullName() != null ? only.fullName()
          : only.name(), 140));
      return 0;
    }
    return only.id();
  }

  /** Revokes a token the broker will not hand out; says how that went, for the message. */
  private String revokeNow(Secret token) {
    try {
      revoke(token);
      return "the token was revoked";
    } catch (BrokerException e) {
      log.error("could not revoke a refused installation token; it stays valid until GitHub"
          + " expires it (at most an hour): {}", e.getMessage());
      return "revoking the token failed (" + e.reason() + "); it stays valid until GitHub expires"
          + " it, within an hour";
    }
  }

  private BrokerException jwtRejected(ApiResponse r, String what) {
    jwt.forget();
    return new BrokerException(Reason.BAD_CREDENTIALS, "GitHub rejected the App's JWT on " + what
        + " (" + r.status(json) + "): check the App ID (" + config.appId() + ") and key, and that"
        + " this host's clock is right" + skew(r), r.requestId());
  }

  /** Names the clock skew when GitHub's Date header shows one big enough to matter. */
  private String skew(ApiResponse r) {
    String date = r.headers().get("Date");
    if (date == null) {
      return "";
    }
    Instant theirs;
    try {
      theirs = ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      return "";
    }
    Duration ahead = Duration.between(theirs, clock.instant());
    if (ahead.abs().compareTo(NOTABLE_SKEW) < 0) {
      return "";
    }
    return "; this host's clock is " + ahead.abs().getSeconds() + " s "
        + (ahead.isNegative() ? "behind" : "ahead of") + " GitHub's";
  }

  private BrokerException unexpected(ApiResponse r, String what) {
    return new BrokerException(Reason.UPSTREAM_ERROR,
        "GitHub answered " + what + " with " + r.status(json) + ", which the broker does not"
            + " expect", r.requestId());
  }

  private static BrokerException malformed(ApiResponse r, String what, String why) {
    return new BrokerException(Reason.MALFORMED_RESPONSE,
        "GitHub's answer to " + what + " " + why, r.requestId());
  }

  private JsonNode readJson(ApiResponse r, String what) throws BrokerException {
    JsonNode root;
    try {
      root = json.readTree(r.body());
    } catch (IOException e) {
      throw malformed(r, what, "is not valid JSON");
    }
    if (root == null || !root.isObject()) {
      throw malformed(r, what, "is not a JSON object");
    }
    return root;
  }

  private byte[] bytes(ObjectNode body) {
    try {
      return json.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialise a request body", e);
    }
  }

  private static String describe(Map<String, String> asked) {
    List<String> parts = new ArrayList<>();
    new TreeMap<>(asked).forEach((name, level) -> parts.add(name + ": " + level));
    return String.join(", ", parts);
  }
}
