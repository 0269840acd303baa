package dev.pushgate.broker;

import dev.pushgate.types.UntrustedText;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.broker.BrokerException.Reason;
import dev.pushgate.types.BoundedBody;
import dev.pushgate.types.Secret;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one REST request to GitHub with the headers GitHub asks for, timeouts, retries with
 * jittered exponential backoff on 5xx and network errors, and rate-limit waits — all inside one
 * deadline per call. Status codes other than 5xx and rate limits are the caller's to interpret.
 */
final class GitHubRest {
  private static final Logger log = LoggerFactory.getLogger(GitHubRest.class);

  static final String ACCEPT = "application/vnd.github+json";
  static final String API_VERSION = "2022-11-28";
  static final String USER_AGENT = "pushgate-broker";
  static final int MAX_BODY_BYTES = 1 << 20;
  static final Duration FIRST_BACKOFF = Duration.ofMillis(500);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
  /** GitHub: with no retry-after or reset for a secondary limit, "wait for at least one minute". */
  static final Duration SECONDARY_LIMIT_WAIT = Duration.ofMinutes(1);
  static final int MAX_RATE_LIMIT_WAITS = 5;

  private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");

  enum Method { GET, POST, DELETE }

  /**
   * The credential of one attempt. Asked again on every attempt, so an App JWT that aged during a
   * long rate-limit wait is renewed rather than sent stale.
   */
  @FunctionalInterface
  interface Bearer {
    Secret get() throws BrokerException;
  }

  private final OkHttpClient http;
  private final HttpUrl base;
  private final Clock clock;
  private final Sleeper sleeper;
  private final Duration deadline;
  private final int maxAttempts;
  private final ObjectMapper json;
  private final String timeouts;
  private final String origin;

  GitHubRest(GitHubAppConfig config, OkHttpClient http, Clock clock, Sleeper sleeper,
      ObjectMapper json) {
    this.http = http.newBuilder()
        .connectTimeout(config.connectTimeout())
        .readTimeout(config.readTimeout())
        .writeTimeout(config.readTimeout())
        .callTimeout(config.callTimeout())
        // never from https down to http with a credential on board
        .followSslRedirects(false)
        // this class counts attempts itself; OkHttp's silent re-sends would blur the bound and
        // could mint a second token unseen
        .retryOnConnectionFailure(false)
        .build();
    this.base = Objects.requireNonNull(HttpUrl.parse(config.apiBaseUrl().toString()), "apiBaseUrl");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.deadline = config.retryDeadline();
    this.maxAttempts = config.maxAttempts();
    this.json = json;
    this.origin = config.apiBaseUrl().getScheme() + "://" + config.apiBaseUrl().getRawAuthority();
    this.timeouts = "connect " + Text.seconds(config.connectTimeout()) + ", read "
        + Text.seconds(config.readTimeout()) + ", whole request "
        + Text.seconds(config.callTimeout());
  }

  /** The API URL of the given path segments, below the configured base (GHES keeps /api/v3). */
  HttpUrl url(String... segments) {
    HttpUrl.Builder b = base.newBuilder();
    for (String s : segments) {
      b.addPathSegment(s);
    }
    return b.build();
  }

  /** How messages name a request: method and the path below the API base. */
  String describe(Method method, HttpUrl url) {
    String path = url.encodedPath().substring(base.encodedPath().length());
    return method + " " + (path.startsWith("/") ? path : "/" + path);
  }

  ApiResponse send(Method method, HttpUrl url, Bearer bearer, byte[] body) throws BrokerException {
    String what = describe(method, url);
    Instant giveUpAt = clock.instant().plus(deadline);
    int failures = 0;
    int rateLimitWaits = 0;
    while (true) {
      Secret credential = bearer.get();
      if (!Text.headerSafe(credential.reveal())) {
        throw new BrokerException(Reason.VALIDATION_FAILED, "cannot send " + what
            + ": the credential holds characters not allowed in an HTTP header");
      }
      ApiResponse response;
      try {
        response = execute(request(method, url, credential, body));
      } catch (IOException e) {
        failures++;
        BrokerException error = networkError(e, what, failures);
        retryOrThrow(error, failures, giveUpAt, what, describe(e));
        continue;
      }
      if (response.code() >= 500) {
        failures++;
        BrokerException error = new BrokerException(Reason.UPSTREAM_ERROR,
            "GitHub answered " + what + " with " + response.status(json) + after(failures),
            response.requestId());
        retryOrThrow(error, failures, giveUpAt, what, "HTTP " + response.code());
        continue;
      }
      if (response.code() == 403 || response.code() == 429) {
        Duration wait = rateLimitWait(response, rateLimitWaits);
        if (wait != null) {
          rateLimitWaits++;
          Instant until = clock.instant().plus(wait);
          if (rateLimitWaits > MAX_RATE_LIMIT_WAITS) {
            throw new BrokerException(Reason.RATE_LIMITED,
                "GitHub rate limit on " + what + " (" + response.status(json) + ") persists after "
                    + MAX_RATE_LIMIT_WAITS + " waits; try again later",
                response.requestId());
          }
          if (until.isAfter(giveUpAt)) {
            throw new BrokerException(Reason.RATE_LIMITED,
                "GitHub rate limit on " + what + " (" + response.status(json) + "): it lifts at "
                    + until.truncatedTo(ChronoUnit.SECONDS) + ", past the "
                    + Text.seconds(deadline) + " deadline; try again then",
                response.requestId());
          }
          log.warn("GitHub rate limit on {} ({}); waiting {} [request id {}]",
              what, response.code(), Text.seconds(wait), response.requestId());
          pause(wait, what);
          continue;
        }
      }
      return response;
    }
  }

  private Request request(Method method, HttpUrl url, Secret bearer, byte[] body) {
    Request.Builder b = new Request.Builder()
        .url(url)
        .header("Accept", ACCEPT)
        .header("X-GitHub-Api-Version", API_VERSION)
        .header("User-Agent", USER_AGENT)
        .header("Authorization", "Bearer " + bearer.reveal());
    switch (method) {
      case GET -> b.get();
      case DELETE -> b.delete();
      case POST -> b.post(RequestBody.create(body == null ? new byte[0] : body, JSON));
      default -> throw new IllegalStateException("unknown method " + method);
    }
    return b.build();
  }

  private ApiResponse execute(Request request) throws IOException, BrokerException {
    try (Response response = http.newCall(request).execute();
        InputStream in = response.body().byteStream()) {
      String requestId = Text.requestId(response.header("x-github-request-id"));
      byte[] bytes;
      try {
        bytes = BoundedBody.read(in, -1, MAX_BODY_BYTES);
      } catch (BoundedBody.Refused e) {
        throw new BrokerException(Reason.MALFORMED_RESPONSE,
            "GitHub's answer to " + describe(Method.valueOf(request.method()), request.url())
                + " is larger than " + MAX_BODY_BYTES / 1024 + " KiB",
            requestId);
      }
      return new ApiResponse(response.code(), response.headers(), bytes, requestId);
    }
  }

  private void retryOrThrow(BrokerException error, int failures, Instant giveUpAt, String what,
      String cause) throws BrokerException {
    if (failures >= maxAttempts) {
      throw error;
    }
    Duration wait = backoff(failures);
    if (clock.instant().plus(wait).isAfter(giveUpAt)) {
      throw error;
    }
    log.warn("{} failed ({}); attempt {} of {} in {} [request id {}]",
        what, cause, failures + 1, maxAttempts, Text.seconds(wait), error.requestId().orElse("-"));
    pause(wait, what);
  }

  /** Full-jitter-ish: half the exponential step fixed, half random, so callers spread out. */
  static Duration backoff(int failures) {
    long step = FIRST_BACKOFF.toMillis() << Math.min(failures - 1, 20);
    long capped = Math.min(step, MAX_BACKOFF.toMillis());
    long half = capped / 2;
    return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(half + 1));
  }

  /**
   * How long GitHub asks us to wait, or null when this 403/429 is not a rate limit. Follows
   * GitHub's rules: {@code x-ratelimit-remaining: 0} means wait until {@code x-ratelimit-reset};
   * {@code retry-after} is in seconds; a secondary limit with neither means at least a minute,
   * growing on repeats.
   */
  Duration rateLimitWait(ApiResponse response, int previousWaits) {
    Instant now = clock.instant();
    Duration wait = null;
    String remaining = response.headers().get("x-ratelimit-remaining");
    if ("0".equals(remaining == null ? null : remaining.trim())) {
      Long reset = number(response.headers().get("x-ratelimit-reset"));
      wait = reset == null
          ? SECONDARY_LIMIT_WAIT
          : atLeastOneSecond(Duration.between(now, Instant.ofEpochSecond(reset)).plusSeconds(1));
    }
    Duration retryAfter = retryAfter(response.headers().get("retry-after"), now);
    if (retryAfter != null) {
      wait = wait == null || retryAfter.compareTo(wait) > 0 ? retryAfter : wait;
    }
    if (wait == null && (response.code() == 429 || response.githubMessage(json)
        .toLowerCase(Locale.ROOT).contains("secondary rate limit"))) {
      wait = SECONDARY_LIMIT_WAIT.multipliedBy(1L << Math.min(previousWaits, 4));
    }
    return wait;
  }

  private static Duration retryAfter(String header, Instant now) {
    if (header == null) {
      return null;
    }
    Long seconds = number(header);
    if (seconds != null) {
      return atLeastOneSecond(Duration.ofSeconds(seconds));
    }
    try {
      Instant at = ZonedDateTime.parse(header.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      return atLeastOneSecond(Duration.between(now, at));
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static Duration atLeastOneSecond(Duration d) {
    return d.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : d;
  }

  private static Long number(String header) {
    if (header == null) {
      return null;
    }
    try {
      long n = Long.parseLong(header.trim());
      return n < 0 ? null : n;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private void pause(Duration wait, String what) throws BrokerException {
    try {
      sleeper.sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrokerException(Reason.INTERRUPTED,
          "interrupted while waiting to retry " + what);
    }
  }

  private BrokerException networkError(IOException e, String what, int failures) {
    if (e instanceof InterruptedIOException) {
      return new BrokerException(Reason.TIMEOUT,
          "GitHub did not answer " + what + " in time (timeouts: " + timeouts + ")"
              + after(failures));
    }
    return new BrokerException(Reason.NETWORK,
        "could not reach GitHub at " + origin + " for " + what + " (" + describe(e) + ")"
            + after(failures));
  }

  private static String after(int failures) {
    return failures == 1 ? "" : " after " + failures + " attempts";
  }

  private static String describe(IOException e) {
    String message = UntrustedText.oneLine(e.getMessage(), 120);
    return e.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
  }
}
