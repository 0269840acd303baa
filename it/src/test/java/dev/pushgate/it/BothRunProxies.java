package dev.pushgate.it;

import dev.pushgate.testkit.ApplianceExtension;
import dev.pushgate.testkit.RunningAppliance;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two appliances of a test class with forge repository acme/widget, one for each kind of run
 * proxy: {@code sandboxed} (bubblewrap, the sandbox's egress proxy) and {@code none}
 * ({@code --sandbox off}, the loopback proxy of a run without an OS sandbox, with the API
 * boundary on). Each is an {@link ApplianceExtension} with a directory of its own that the sandbox
 * user may pass through, started on first use; a host without bubblewrap skips the class
 * ({@link ExecTest#requireBwrap}).
 *
 * <pre>{@code
 * @RegisterExtension
 * static final BothRunProxies appliances = new BothRunProxies();
 * }</pre>
 */
final class BothRunProxies implements BeforeAllCallback, AfterAllCallback {
  /** A test run once for each kind of run proxy, {@code "sandboxed"} then {@code "none"}. */
  @Target(ElementType.METHOD)
  @Retention(RetentionPolicy.RUNTIME)
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sandboxed", "none"})
  @interface EachProxy {}

  private final ApplianceExtension sandboxed = ApplianceExtension.serving()
      .forSandboxedRuns().withRepos("acme/widget");
  private final ApplianceExtension none = ApplianceExtension.serving("--sandbox", "off")
      .forSandboxedRuns().withRepos("acme/widget")
      .with(b -> b.jvm(List.of("-Dpushgate.github-api-boundary=true")));

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    ExecTest.requireBwrap();
    sandboxed.beforeAll(context);
    none.beforeAll(context);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    try {
      sandboxed.afterAll(context);
    } finally {
      none.afterAll(context);
    }
  }

  /** The appliance for {@code "sandboxed"} or {@code "none"}, started on the first call. */
  RunningAppliance of(String proxy) {
    return extension(proxy).get();
  }

  /** The directory of {@code proxy}'s appliance, for the test's work and home. */
  java.nio.file.Path dir(String proxy) {
    return extension(proxy).dir();
  }

  private ApplianceExtension extension(String proxy) {
    return proxy.equals("sandboxed") ? sandboxed : none;
  }
}
