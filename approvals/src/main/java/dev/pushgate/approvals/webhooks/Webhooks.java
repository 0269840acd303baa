package dev.pushgate.approvals.webhooks;

import dev.pushgate.approvals.Answer;
import dev.pushgate.approvals.ApprovalDesk;
import dev.pushgate.approvals.Question;
import dev.pushgate.types.ConnectionFailure;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts approval events to the configured webhooks, off the desk's thread: an event is queued
 * (bounded; a full queue drops it, with a warning and a count) and one thread delivers, in order,
 * retrying a 5xx, a 408 or 429, a timeout or a refused connection with a growing wait. Asking a
 * question and pushing never wait on a webhook. Logs name a webhook by its format and host, never
 * by its URL (a Slack URL is the key to its channel) or signing key, and never quote a response.
 */
public final class Webhooks implements ApprovalDesk.Listener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Webhooks.class);
  private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");
  public static final String SIGNATURE_HEADER = "X-Pushgate-Signature-256";
  public static final String EVENT_HEADER = "X-Pushgate-Event";
  public static final String DELIVERY_HEADER = "X-Pushgate-Delivery";

  /** How each delivery ends, for a metric: {@code ok}, {@code failed} or {@code dropped}. */
  public interface Outcomes {
    Outcomes NONE = outcome -> {};

    void onDelivery(String outcome);
  }

  /**
   * {@code queue}: events waiting at most; {@code attempts}: posts of one event at most; {@code
   * backoff}: the wait after the first failed attempt, doubled after each next one; {@code
   * timeout}: to connect, and for each read and write; {@code closeGrace}: how long a close lets
   * queued events go out.
   */
  public record Tuning(int queue, int attempts, Duration backoff, Duration timeout,
      Duration closeGrace) {
    public static final Tuning DEFAULT = new Tuning(256, 4, Duration.ofSeconds(1),
        Duration.ofSeconds(5), Duration.ofSeconds(5));

    public Tuning {
      if (queue < 1 || attempts < 1) {
        throw new IllegalArgumentException("a webhook queue and attempts must be at least 1");
      }
    }
  }

  private final WebhookSettings settings;
  private final Tuning tuning;
  private final Outcomes outcomes;
  private final OkHttpClient http;
  private final ThreadPoolExecutor worker;
  /** Set when the close grace is over: a delivery under way gives up instead of retrying. */
  private volatile boolean stopped;
  /** The post under way, cancelled by a close whose grace is over (a read ignores interrupts). */
  private volatile Call current;

  public Webhooks(WebhookSettings settings, Tuning tuning, Outcomes outcomes) {
    this.settings = settings;
    this.tuning = tuning;
    this.outcomes = outcomes;
    // No redirects: a 3xx must not carry the body and its signature somewhere else.
    this.http = new OkHttpClient.Builder().connectTimeout(tuning.timeout())
        .readTimeout(tuning.timeout()).writeTimeout(tuning.timeout())
        .callTimeout(tuning.timeout().multipliedBy(3)).followRedirects(false)
        .followSslRedirects(false).retryOnConnectionFailure(false).build();
    this.worker = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(tuning.queue()), r -> {
          Thread t = new Thread(r, "pushgate-webhooks");
          t.setDaemon(true);
          return t;
        }, (r, pool) -> dropped((Delivery) r));
  }

  @Override
  public void onAsked(Question q) {
    send(WebhookEvent.asked(q));
  }

  @Override
  public void onEnded(Question q, Answer a) {
    send(WebhookEvent.ended(q, a));
  }

  /** Queues {@code e} for every webhook; returns at once. */
  public void send(WebhookEvent e) {
    for (Webhook w : settings.webhooks()) {
      try {
        worker.execute(new Delivery(w, e));
      } catch (RejectedExecutionException full) {
        // the rejection handler counted it already
      }
    }
  }

  private void dropped(Delivery d) {
    outcomes.onDelivery("dropped");
    log.warn("webhook {}: {} of question {} dropped: {}", d.webhook, d.event.type().id(),
        d.event.question().id(), worker.isShutdown() ? "the appliance is stopping"
            : "the queue is full (" + tuning.queue() + " events waiting; a webhook is slow or"
                + " down)");
  }

  /** One event for one webhook, with its retries. */
  private final class Delivery implements Runnable {
    final Webhook webhook;
    final WebhookEvent event;

    Delivery(Webhook webhook, WebhookEvent event) {
      this.webhook = webhook;
      this.event = event;
    }

    @Override
    public void run() {
      byte[] body = Payloads.body(webhook.format(), event);
      String id = UUID.randomUUID().toString();
      Duration wait = tuning.backoff();
      for (int attempt = 1; ; attempt++) {
        Attempt result = post(body, id);
        if (result.ok) {
          outcomes.onDelivery("ok");
          return;
        }
        if (!result.retry || attempt >= tuning.attempts() || stopped) {
          outcomes.onDelivery("failed");
          log.warn("webhook {}: {} of question {} not delivered after {} attempt{}: {}", webhook,
              event.type().id(), event.question().id(), attempt, attempt == 1 ? "" : "s",
              stopped ? result.why + " (the appliance is stopping)" : result.why);
          return;
        }
        log.info("webhook {}: {} of question {}, attempt {}: {}; again in {} ms", webhook,
            event.type().id(), event.question().id(), attempt, result.why, wait.toMillis());
        try {
          Thread.sleep(wait.toMillis());
        } catch (InterruptedException stopping) {
          Thread.currentThread().interrupt();
          outcomes.onDelivery("failed");
          log.warn("webhook {}: {} of question {} not delivered: the appliance stopped first",
              webhook, event.type().id(), event.question().id());
          return;
        }
        wait = wait.multipliedBy(2);
      }
    }

    private Attempt post(byte[] body, String id) {
      Request.Builder request = new Request.Builder().url(webhook.url().reveal())
          .header("User-Agent", "pushgate-webhooks").header(EVENT_HEADER, event.type().id())
          .header(DELIVERY_HEADER, id).post(RequestBody.create(body, JSON));
      if (webhook.signed()) {
        request.header(SIGNATURE_HEADER, signature(webhook, body));
      }
      Call call = http.newCall(request.build());
      current = call;
      if (stopped) {
        call.cancel();
      }
      try (Response response = call.execute()) {
        int status = response.code();
        if (status >= 200 && status < 300) {
          return new Attempt(true, false, null);
        }
        boolean retry = status >= 500 || status == 408 || status == 429;
        return new Attempt(false, retry, "status " + status);
      } catch (IOException e) {
        return new Attempt(false, true, describe(e));
      } catch (RuntimeException e) {
        return new Attempt(false, false, "the request could not be made");
      } finally {
        current = null;
      }
    }
  }

  private record Attempt(boolean ok, boolean retry, String why) {}

  /**
   * {@code sha256=} and the HMAC-SHA256 of {@code body} under the webhook's secret, in lowercase
   * hex: GitHub's {@code X-Hub-Signature-256}, so that receivers can use the same check.
   */
  static String signature(Webhook w, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(w.signingKey().reveal().getBytes(StandardCharsets.UTF_8),
          "HmacSHA256"));
      return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 is not available", e);
    }
  }

  /** A failure in words ({@link ConnectionFailure}), with the timeout that ran out. */
  private String describe(IOException e) {
    if (e instanceof InterruptedIOException) {
      return "no answer in time (" + tuning.timeout().toMillis() + " ms to connect or read)";
    }
    return ConnectionFailure.describe(e);
  }

  /** Lets queued events go out for the close grace, then stops whatever is left. */
  @Override
  public void close() {
    worker.shutdown();
    try {
      if (!worker.awaitTermination(tuning.closeGrace().toMillis(), TimeUnit.MILLISECONDS)) {
        stopped = true;
        int left = worker.shutdownNow().size(); // first: the queue is emptied before the cancel
        Call under = current;
        if (under != null) {
          under.cancel();
        }
        for (int i = 0; i < left; i++) {
          outcomes.onDelivery("dropped");
        }
        if (left > 0) {
          log.warn("webhooks: {} events not delivered: the appliance stopped first", left);
        }
      }
    } catch (InterruptedException e) {
      stopped = true;
      worker.shutdownNow();
      Call under = current;
      if (under != null) {
        under.cancel();
      }
      Thread.currentThread().interrupt();
    }
    http.connectionPool().evictAll();
  }
}
