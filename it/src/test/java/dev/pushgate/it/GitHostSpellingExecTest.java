package dev.pushgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pushgate.testkit.RunningAppliance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A spelling of github.com that no rule of the run's git config can match, because git does not
 * decode a percent-encoded host and curl does, is refused by the run's own proxy, in a sandboxed
 * run (the egress proxy) and in a run without an OS sandbox (its loopback proxy): the real git,
 * inside {@code pushgate exec}, fetch and push, https and http. The clone through the gateway
 * works in the same run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GitHostSpellingExecTest {
  private static final List<String> URLS = List.of("https://%67ithub.com/acme/widget.git",
      "https://github%2Ecom/acme/widget.git", "https://x@%47ithub.com/acme/widget.git",
      "http://%67ithub.com/acme/widget.git", "http://github%2Ecom/acme/widget.git");

  private static final String SCRIPT = """
      git clone -q https://github.com/acme/widget.git widget && echo clone-ok
      cd widget
      for url in %s; do
        for op in ls-remote fetch push; do
          if [ "$op" = push ]; then git push "$url" HEAD:refs/heads/spelled > out 2>&1
          else git "$op" "$url" > out 2>&1; fi
          echo "$op $url exit=$? $(tr '\\n' ' ' < out)"
        done
      done
      """.formatted(String.join(" ", URLS));

  @RegisterExtension
  static final BothRunProxies appliances = new BothRunProxies();

  @BothRunProxies.EachProxy
  void aPercentEncodedHostIsRefusedByTheRunsProxyForFetchAndPush(String proxy) throws Exception {
    RunningAppliance app = appliances.of(proxy);
    Path work = Files.createDirectories(appliances.dir(proxy).resolve("work"));
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxrwxrwx"));
    PushgateExec.Result exec = PushgateExec.on(app.dataDir, appliances.dir(proxy).resolve("home"))
        .run(work, Map.of(), "--workdir", work.toString(), "--", "sh", "-c", SCRIPT);
    String out = exec.stdout();
    assertThat(exec.stderr()).contains(proxy.equals("sandboxed") ? "under bubblewrap" : "");
    assertThat(out).as(exec.stderr()).contains("clone-ok");
    for (String url : URLS) {
      for (String op : List.of("ls-remote", "fetch", "push")) {
        String line = out.lines().filter(l -> l.startsWith(op + " " + url + " "))
            .findFirst().orElseThrow(() -> new AssertionError("no " + op + " " + url + ":\n" + out));
        assertThat(line).doesNotContain("exit=0");
        assertThat(line).contains(url.startsWith("https:") ? "CONNECT tunnel failed, response 403"
            : "remote: pushgate: egress refused: denied: github.com serves git");
      }
    }
  }
}
