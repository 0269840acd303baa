package dev.pushgate.appliance;

import dev.pushgate.approvals.ApprovalDesk;
import dev.pushgate.appliance.audit.SinkSettings;
import dev.pushgate.appliance.control.RunApi;
import dev.pushgate.approvals.webhooks.WebhookSettings;
import dev.pushgate.broker.GitHubAppConfig;
import dev.pushgate.gateway.GatewayConfig;
import dev.pushgate.sandbox.MicroVmHost;
import dev.pushgate.sandbox.PassedVariables;
import dev.pushgate.sandbox.SandboxSwitch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * What {@code serve} runs with. {@code github} is null for the embedded local forge;
 * {@code databaseUrl} is null for SQLite in the data directory; {@code passEnv} names the
 * launcher variables runs get beyond the basics; {@code approverPollGrace} is how long a long poll
 * of the control API counts as a connected approver; {@code auditSinks} where audit records are
 * copied beyond the database; {@code runtimeDir} where the gateway socket for sandboxed runs
 * lives, null for a fresh temporary directory; {@code webhooks} where approval events are posted;
 * {@code microVm} where the microvm backend finds KVM, the hypervisor and its guest.
 */
public record Settings(
    Path dataDir,
    String bindHost,
    int port,
    boolean allowNonLoopback,
    GitHubAppConfig github,
    Duration runTtl,
    Duration maxRunTtl,
    Duration refreshBefore,
    Duration forgeTokenLifetime,
    long maxPackBytes,
    Duration clientTimeout,
    Duration upstreamTimeout,
    Duration sweepInterval,
    Duration shutdownGrace,
    SandboxSwitch sandbox,
    Duration approvalTimeout,
    Duration approverPollGrace,
    RunApi.HookAsk hookAsk,
    String databaseUrl,
    DefaultRules defaultRules,
    int writeTokensPerMinute,
    Limits limits,
    PassedVariables passEnv,
    SinkSettings auditSinks,
    Path runtimeDir,
    WebhookSettings webhooks,
    String sandboxSource,
    MicroVmHost microVm) {

  public Settings {
    microVm = microVm == null ? MicroVmHost.of(null, null) : microVm;
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(bindHost, "bindHost");
    Objects.requireNonNull(limits, "limits");
    passEnv = passEnv == null ? PassedVariables.NONE : passEnv;
    auditSinks = auditSinks == null ? SinkSettings.NONE : auditSinks;
    webhooks = webhooks == null ? WebhookSettings.NONE : webhooks;
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be between 0 and 65535: " + port);
    }
    if (writeTokensPerMinute < 1) {
      throw new IllegalArgumentException(
          "--max-write-tokens-per-minute must be at least 1: " + writeTokensPerMinute);
    }
  }

  /** As the canonical constructor, with the microvm backend looking for KVM at /dev/kvm and no guest. */
  public Settings(Path dataDir, String bindHost, int port, boolean allowNonLoopback,
      GitHubAppConfig github, Duration runTtl, Duration maxRunTtl, Duration refreshBefore,
      Duration forgeTokenLifetime, long maxPackBytes, Duration clientTimeout,
      Duration upstreamTimeout, Duration sweepInterval, Duration shutdownGrace,
      SandboxSwitch sandbox, Duration approvalTimeout, Duration approverPollGrace,
      RunApi.HookAsk hookAsk, String databaseUrl, DefaultRules defaultRules,
      int writeTokensPerMinute, Limits limits, PassedVariables passEnv, SinkSettings auditSinks,
      Path runtimeDir, WebhookSettings webhooks, String sandboxSource) {
    this(dataDir, bindHost, port, allowNonLoopback, github, runTtl, maxRunTtl, refreshBefore,
        forgeTokenLifetime, maxPackBytes, clientTimeout, upstreamTimeout, sweepInterval,
        shutdownGrace, sandbox, approvalTimeout, approverPollGrace, hookAsk, databaseUrl,
        defaultRules, writeTokensPerMinute, limits, passEnv, auditSinks, runtimeDir, webhooks,
        sandboxSource, null);
  }

  public static Settings defaults(Path dataDir) {
    return new Settings(dataDir, "127.0.0.1", 7070, false, null, Duration.ofHours(8),
        Duration.ofDays(7), Duration.ofMinutes(10), Duration.ofHours(1),
        2L * 1024 * 1024 * 1024, Duration.ofMinutes(2), Duration.ofMinutes(5),
        Duration.ofSeconds(5), Duration.ofSeconds(30), SandboxSwitch.ON, Duration.ofMinutes(5),
        ApprovalDesk.DEFAULT_POLL_GRACE,
        RunApi.HookAsk.APPROVERS, null, DefaultRules.NONE,
        GatewayConfig.DEFAULT_WRITE_TOKENS_PER_MINUTE, Limits.defaults(),
        PassedVariables.NONE, SinkSettings.NONE, null, WebhookSettings.NONE, null);
  }
}
