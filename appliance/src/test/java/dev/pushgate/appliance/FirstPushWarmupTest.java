package dev.pushgate.appliance;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.pushgate.broker.GitHubAppConfig;
import dev.pushgate.testkit.Wait;
import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.RepositoryCache;
import org.eclipse.jgit.util.FS;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The warm-up after a start (issue 33): the caches the data directory holds are opened before any
 * push asks for them, with nothing sent upstream, so an unreachable GitHub App API changes nothing.
 */
class FirstPushWarmupTest {
  private static final Duration WITHIN = Duration.ofSeconds(20);

  @TempDir Path tmp;

  @Test
  void aStartWithItsAppApiUnreachableStillStartsAndOpensTheCachesItHolds() throws Exception {
    Path data = tmp.resolve("data");
    File cache = data.resolve("cache").resolve("acme").resolve("widget.git").toFile();
    try (FileRepository db = new FileRepository(cache)) {
      db.create(true);
      try (ObjectInserter in = db.newObjectInserter()) {
        in.insert(Constants.OBJ_BLOB, "a blob of the cache\n".getBytes(StandardCharsets.UTF_8));
        in.flush();
      }
    }
    RepositoryCache.FileKey key = RepositoryCache.FileKey.exact(cache, FS.DETECTED);
    assertThat(RepositoryCache.getRegisteredKeys()).doesNotContain(key);
    ListAppender<ILoggingEvent> logged = listen();

    try (TestAppliance a = TestAppliance.start(data, unreachableApp())) {
      assertThat(a.get("/healthz").statusCode()).isEqualTo(200);
      Wait.until(WITHIN, "the warm-up to open the cache of acme/widget",
          () -> RepositoryCache.getRegisteredKeys().contains(key));
      String line = Wait.forValue(WITHIN, "the warm-up's summary", () -> summary(logged),
          s -> s != null);
      assertThat(line).startsWith("warmed for the first pushes: 1 caches, ")
          .doesNotContain("BEGIN").doesNotContain("Bearer").doesNotContain("eyJ");
      assertThat(a.get("/readyz").body()).contains("github-app");
    } finally {
      ((Logger) LoggerFactory.getLogger(FirstPushWarmup.class)).detachAppender(logged);
    }
  }

  @Test
  void everyListedClassIsInTheJarOrTheJdk() {
    List<String> listed = FirstPushWarmup.listed();
    assertThat(listed).hasSizeGreaterThan(100);
    FirstPushWarmup warmup = new FirstPushWarmup(null, listed, Duration.ofSeconds(30));
    assertThat(warmup.load(() -> true)).as("a stale name in " + FirstPushWarmup.CLASSES)
        .isEqualTo(listed.size());
  }

  private static String summary(ListAppender<ILoggingEvent> logged) {
    synchronized (logged.list) {
      return logged.list.stream().map(ILoggingEvent::getFormattedMessage)
          .filter(m -> m.startsWith("warmed for the first pushes")).findFirst().orElse(null);
    }
  }

  private static ListAppender<ILoggingEvent> listen() {
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    Logger logger = (Logger) LoggerFactory.getLogger(FirstPushWarmup.class);
    logger.setLevel(ch.qos.logback.classic.Level.INFO);
    logger.addAppender(appender);
    return appender;
  }

  /** A GitHub App of a fresh key whose API is a loopback port nothing listens on. */
  private GitHubAppConfig unreachableApp() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    return TestAppliance.appWithFreshKey(tmp, URI.create("http://127.0.0.1:" + closed),
        Duration.ofSeconds(1));
  }
}
