package dev.pushgate.appliance.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.appliance.runs.RunRequestException;
import dev.pushgate.sandbox.MicroVmStatus;
import dev.pushgate.sandbox.Platform;
import dev.pushgate.sandbox.SandboxBackend;
import dev.pushgate.sandbox.TerminalProfile;
import dev.pushgate.types.UntrustedText;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/terminals}: the command line and environment of a hosted terminal for a
 * launcher that hosts terminals in PTYs of its own. pushgate decides the profile; the launcher
 * runs exactly what it is given in its PTY. The appliance starts nothing but a trial of the
 * sandbox (a shell that does nothing), and gives nothing of a run: no token, no gateway. A host
 * that cannot wrap the shell is a 422 with the reason, never a command that runs on the host.
 */
final class TerminalApi {
  private static final Logger LOG = LoggerFactory.getLogger(TerminalApi.class);
  static final int MAX_PATH_CHARS = 4096;
  private static final String SYSTEM_PATH =
      "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

  /** A terminal's answer, or the reason there is none. */
  record Answer(int status, JsonNode body) {}

  private final ObjectMapper json;
  private final Platform platform;
  private final Map<String, String> environment;
  private final MicroVmStatus microVm;

  TerminalApi(ObjectMapper json, Platform platform, Map<String, String> environment,
      MicroVmStatus microVm) {
    this.json = json;
    this.platform = platform;
    this.environment = Map.copyOf(environment);
    this.microVm = microVm;
  }

  /**
   * This appliance: its platform, its own environment (its user's home, locale, PATH), and what
   * its microvm probe found.
   */
  static TerminalApi ofThisHost(ObjectMapper json, MicroVmStatus microVm) {
    return new TerminalApi(json, Platform.current(), System.getenv(), microVm);
  }

  Answer open(JsonNode body) throws RunRequestException, InterruptedException {
    String workdir = path(body, "workdir", true);
    String shell = path(body, "shell", false);
    SandboxBackend backend = backend(body);
    if (backend == SandboxBackend.MICROVM) {
      // Asked for a VM: never a terminal on the host instead, whatever the host offers.
      return refused("microvm terminal requested, but the microvm backend is unavailable: "
          + microVm.detail() + ". No terminal was opened on the host instead");
    }
    String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
    String searchPath = SYSTEM_PATH + ":" + environment.getOrDefault("PATH", "");
    TerminalProfile.Session session;
    try {
      session = TerminalProfile.plan(new TerminalProfile.Request(platform, searchPath,
          home == null || home.isEmpty() ? null : Path.of(home), Path.of(workdir), shell,
          environment, accountHome()));
      String trial = TerminalProfile.trial(session);
      if (trial != null) {
        throw new TerminalProfile.Unsupported("bubblewrap cannot start a sandbox on this host ("
            + trial + "); no terminal is offered, and never an unsandboxed one");
      }
    } catch (TerminalProfile.Unsupported e) {
      return refused(e.getMessage());
    } catch (java.io.IOException e) {
      return refused("bubblewrap could not be started for a trial of the sandbox");
    }
    LOG.info("terminal planned: native (bubblewrap) in {}", UntrustedText.printable(
        session.workdir()));
    ObjectNode out = json.createObjectNode();
    out.put("backend", "native");
    out.put("profile", "terminal");
    session.argv().forEach(out.putArray("argv")::add);
    ObjectNode env = out.putObject("env");
    new java.util.TreeMap<>(session.env()).forEach(env::put);
    out.put("workdir", session.workdir());
    out.put("home", session.home());
    out.put("shell", session.shell());
    session.deniedPaths().forEach(out.putArray("deniedPaths")::add);
    out.put("network", "open");
    // The sandbox is a session of its own, so the PTY's SIGWINCH does not reach script: the
    // launcher passes it on after each resize, as pushgate shell does.
    out.putObject("resize").put("signal", "SIGWINCH").put("process",
        session.argv().get(session.argv().indexOf("--") + 1));
    return new Answer(200, out);
  }

  /** No terminal: the reason, and the backend the caller gets, which is none. */
  private Answer refused(String why) {
    ObjectNode error = json.createObjectNode();
    error.put("error", why);
    error.put("backend", "none");
    return new Answer(422, error);
  }

  /** The backend asked for: {@code native} (the default) or {@code microvm}. */
  private static SandboxBackend backend(JsonNode body) throws RunRequestException {
    JsonNode v = body.get("backend");
    if (v == null || v.isNull()) {
      return SandboxBackend.NATIVE;
    }
    if (!v.isTextual()) {
      throw bad("backend must be a string: native or microvm");
    }
    SandboxBackend b;
    try {
      b = SandboxBackend.parseRequested(v.asText()).orElse(SandboxBackend.NATIVE);
    } catch (IllegalArgumentException e) {
      throw bad(e.getMessage());
    }
    if (b == SandboxBackend.NONE) {
      throw bad("backend none is not offered for a terminal: native or microvm");
    }
    return b;
  }

  /** The account's home (from the password database), denied too whatever HOME says. */
  private static Path accountHome() {
    String home = System.getProperty("user.home");
    return home == null || home.isEmpty() || home.equals("?") ? null : Path.of(home);
  }

  private static String path(JsonNode body, String field, boolean required)
      throws RunRequestException {
    if (body == null || !body.isObject()) {
      throw bad("the body must be a JSON object: {\"workdir\": \"/abs/dir\", \"shell\": …}");
    }
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!name.equals("workdir") && !name.equals("shell") && !name.equals("backend")) {
        String p = UntrustedText.printable(name);
        throw bad("unknown field \"" + (p.length() > 100 ? p.substring(0, 100) + "…" : p)
            + "\": a terminal takes workdir, shell and backend");
      }
    }
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw bad(field + " is required: an absolute path");
      }
      return null;
    }
    if (!v.isTextual()) {
      throw bad(field + " must be a string: an absolute path");
    }
    String s = v.asText();
    if (s.isEmpty() || s.length() > MAX_PATH_CHARS || s.indexOf('\0') >= 0 || !s.startsWith("/")
        || s.indexOf('\n') >= 0) {
      throw bad(field + " must be an absolute path of at most " + MAX_PATH_CHARS
          + " characters, on one line, without NUL");
    }
    return s;
  }

  private static RunRequestException bad(String message) {
    return new RunRequestException(RunRequestException.Status.BAD_REQUEST, message);
  }
}
