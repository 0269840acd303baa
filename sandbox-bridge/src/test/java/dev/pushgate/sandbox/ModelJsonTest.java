package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.policy.Mode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class ModelJsonTest {
  private final ObjectMapper json = new ObjectMapper();

  private <T> T roundTrip(T value, Class<T> type) throws JsonProcessingException {
    return json.readValue(json.writeValueAsString(value), type);
  }

  private static SandboxSpec fullSpec() {
    return new SandboxSpec(
        "space-1", "ws-1", "agent-7",
        List.of(
            SandboxBindMount.of("/data/c1/agents/a7/work", false),
            new SandboxBindMount("/data/c1/agents/a7/config", "/guest/config", true)),
        false, List.of("*.example.com"), "/data/c1/agents/a7/work", Mode.REVIEW,
        List.of("/home/u/src/repo"), List.of("/data/claude"), List.of("/opt/tools"));
  }

  @Test
  void specRoundTripsWithExactFieldNames() throws Exception {
    SandboxSpec spec = fullSpec();
    assertThat(roundTrip(spec, SandboxSpec.class)).isEqualTo(spec);
    JsonNode tree = json.valueToTree(spec);
    List<String> names = new ArrayList<>();
    tree.fieldNames().forEachRemaining(names::add);
    assertThat(names)
        .containsExactly(
            "sessionId", "workspaceId", "agentId", "bindMounts", "networkEnabled",
            "egressAllowlist", "guestWorkdir", "mode", "protectedPaths", "runnerStateDirs",
            "execGrantRoots");
    assertThat(tree.get("mode").asText()).isEqualTo("review");
    assertThat(tree.get("bindMounts").get(1).toString())
        .isEqualTo(
            "{\"hostPath\":\"/data/c1/agents/a7/config\",\"guestPath\":\"/guest/config\","
                + "\"readOnly\":true}");
  }

  @Test
  void specDefaultsFollowTheReference() throws Exception {
    SandboxSpec spec = json.readValue("{\"sessionId\":\"s\",\"workspaceId\":\"w\"}", SandboxSpec.class);
    assertThat(spec.agentId()).isNull();
    assertThat(spec.bindMounts()).isEmpty();
    assertThat(spec.networkEnabled()).isTrue();
    assertThat(spec.egressAllowlist()).isEmpty();
    assertThat(spec.guestWorkdir()).isNull();
    assertThat(spec.mode()).isEqualTo(Mode.CHAT);
    assertThat(spec.protectedPaths()).isEmpty();
    assertThat(spec.runnerStateDirs()).isEmpty();
    assertThat(spec.execGrantRoots()).isEmpty();
    assertThat(roundTrip(spec, SandboxSpec.class)).isEqualTo(spec);

    SandboxBindMount m = json.readValue("{\"hostPath\":\"/a\"}", SandboxBindMount.class);
    assertThat(m).isEqualTo(new SandboxBindMount("/a", "/a", false));
  }

  @Test
  void specIsImmutable() {
    List<String> protectedPaths = new ArrayList<>(List.of("/a"));
    SandboxSpec spec =
        new SandboxSpec("s", "w", null, null, true, null, null, null, protectedPaths, null, null);
    protectedPaths.add("/b");
    assertThat(spec.protectedPaths()).containsExactly("/a");
    assertThatThrownBy(() -> spec.protectedPaths().add("/c"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void refusesMalformedSpecs() {
    assertThatThrownBy(() -> json.readValue("{\"workspaceId\":\"w\"}", SandboxSpec.class))
        .hasRootCauseMessage("sessionId is missing");
    assertThatThrownBy(
            () -> json.readValue("{\"sessionId\":\"s\",\"workspaceId\":\" \"}", SandboxSpec.class))
        .hasRootCauseMessage("workspaceId is missing");
    assertThatThrownBy(
            () ->
                json.readValue(
                    "{\"sessionId\":\"s\",\"workspaceId\":\"w\",\"mode\":\"yolo\"}",
                    SandboxSpec.class))
        .hasRootCauseMessage(
            "not a mode: yolo (expected chat, plan, review or orchestrate)");
    assertThatThrownBy(
            () ->
                json.readValue(
                    "{\"sessionId\":\"s\",\"workspaceId\":\"w\",\"bindMounts\":[{\"readOnly\":true}]}",
                    SandboxSpec.class))
        .hasRootCauseMessage("a bind mount needs a hostPath");
    assertThatThrownBy(
            () ->
                json.readValue(
                    "{\"sessionId\":\"s\",\"workspaceId\":\"w\",\"egressAllowlist\":[null]}",
                    SandboxSpec.class))
        .hasRootCauseMessage("egressAllowlist has a null entry");
    assertThatThrownBy(() -> json.readValue("{\"sessionId\":\"s\"", SandboxSpec.class))
        .isInstanceOf(JsonProcessingException.class);
    assertThatThrownBy(
            () -> new SandboxSpec("s\n", "w", null, null, true, null, null, null, null, null, null))
        .hasMessage("sessionId has a control character: s\\x0a");
  }

  @Test
  void handleRoundTrips() throws Exception {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("pid", 4242);
    details.put("workdir", "/w");
    details.put("profile", null);
    SandboxHandle warm = new SandboxHandle("s", SandboxBackend.NATIVE, SandboxState.WARM, null, details);
    assertThat(roundTrip(warm, SandboxHandle.class)).isEqualTo(warm);
    assertThat(json.writeValueAsString(warm))
        .isEqualTo(
            "{\"sessionId\":\"s\",\"backend\":\"native\",\"state\":\"warm\",\"error\":null,"
                + "\"details\":{\"pid\":4242,\"workdir\":\"/w\",\"profile\":null}}");

    SandboxHandle failed =
        new SandboxHandle("s", SandboxBackend.MICROVM, SandboxState.ERROR, "no hypervisor", null);
    assertThat(roundTrip(failed, SandboxHandle.class)).isEqualTo(failed);
  }

  @Test
  void handleReadsAnUnknownOrMissingBackendAsNone() throws Exception {
    assertThat(
            json.readValue(
                    "{\"sessionId\":\"s\",\"backend\":\"docker\",\"state\":\"created\"}",
                    SandboxHandle.class)
                .backend())
        .isEqualTo(SandboxBackend.NATIVE);
    assertThat(
            json.readValue(
                    "{\"sessionId\":\"s\",\"backend\":\"firecracker\",\"state\":\"created\"}",
                    SandboxHandle.class)
                .backend())
        .isEqualTo(SandboxBackend.NONE);
    assertThat(
            json.readValue(
                    "{\"sessionId\":\"s\",\"backend\":null,\"state\":\"created\"}",
                    SandboxHandle.class)
                .backend())
        .isEqualTo(SandboxBackend.NONE);
  }

  @Test
  void handleHasAnErrorExactlyInStateError() {
    assertThatThrownBy(
            () -> new SandboxHandle("s", SandboxBackend.NATIVE, SandboxState.ERROR, null, null))
        .hasMessage("a sandbox handle has an error exactly in state error");
    assertThatThrownBy(
            () -> new SandboxHandle("s", SandboxBackend.NATIVE, SandboxState.WARM, "boom", null))
        .hasMessage("a sandbox handle has an error exactly in state error");
    assertThatThrownBy(
            () ->
                json.readValue(
                    "{\"sessionId\":\"s\",\"backend\":\"native\",\"state\":\"sleeping\"}",
                    SandboxHandle.class))
        .hasRootCauseMessage(
            "not a sandbox state: sleeping"
                + " (expected created, warm, active, suspended, destroyed or error)");
  }

  private <E extends Enum<E>> void assertRoundTripsAsItsLowerCaseName(E value, Class<E> type)
      throws Exception {
    String text = json.writeValueAsString(value);
    assertThat(text).isEqualTo("\"" + value.name().toLowerCase(java.util.Locale.ROOT) + "\"");
    assertThat(json.readValue(text, type)).isEqualTo(value);
  }

  @ParameterizedTest
  @EnumSource(SandboxState.class)
  void statesUseLowerCaseIds(SandboxState state) throws Exception {
    assertRoundTripsAsItsLowerCaseName(state, SandboxState.class);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void modesUseLowerCaseIds(Mode mode) throws Exception {
    assertRoundTripsAsItsLowerCaseName(mode, Mode.class);
    assertThat(mode.isReadOnly()).isEqualTo(mode != Mode.CHAT);
  }

  @ParameterizedTest
  @EnumSource(SandboxBackend.class)
  void backendsUseLowerCaseIds(SandboxBackend backend) throws Exception {
    String text = json.writeValueAsString(backend);
    assertThat(text).isEqualTo("\"" + backend.id() + "\"");
    assertThat(json.readValue(text, SandboxBackend.class)).isEqualTo(backend);
  }

  @Test
  void violationRoundTrips() throws Exception {
    SandboxViolation v =
        new SandboxViolation("file-write*", "/home/u/.bashrc", "bash: /home/u/.bashrc: Read-only file system");
    assertThat(roundTrip(v, SandboxViolation.class)).isEqualTo(v);
    SandboxViolation noRaw = new SandboxViolation("network-outbound", "evil.example", null);
    assertThat(json.writeValueAsString(noRaw))
        .isEqualTo("{\"action\":\"network-outbound\",\"target\":\"evil.example\",\"raw\":null}");
    assertThat(roundTrip(noRaw, SandboxViolation.class)).isEqualTo(noRaw);
    assertThatThrownBy(() -> json.readValue("{\"target\":\"x\"}", SandboxViolation.class))
        .hasRootCauseMessage("a violation needs an action");
  }

  @Test
  void everyEventRoundTripsWithItsType() throws Exception {
    List<SandboxEvent> events =
        List.of(
            new SandboxEvent.Stdout("hello\n"),
            new SandboxEvent.Stderr("warn\n"),
            new SandboxEvent.Exit(3),
            new SandboxEvent.Starting(),
            new SandboxEvent.Ready(),
            new SandboxEvent.Killed("timeout"),
            new SandboxEvent.Violation(new SandboxViolation("file-read*", "/home/u/.ssh/id_ed25519", null)));
    List<String> expected =
        List.of(
            "{\"type\":\"stdout\",\"data\":\"hello\\n\"}",
            "{\"type\":\"stderr\",\"data\":\"warn\\n\"}",
            "{\"type\":\"exit\",\"exitCode\":3}",
            "{\"type\":\"starting\"}",
            "{\"type\":\"ready\"}",
            "{\"type\":\"killed\",\"reason\":\"timeout\"}",
            "{\"type\":\"violation\",\"violation\":{\"action\":\"file-read*\","
                + "\"target\":\"/home/u/.ssh/id_ed25519\",\"raw\":null}}");
    for (int i = 0; i < events.size(); i++) {
      String text = json.writeValueAsString(events.get(i));
      assertThat(text).isEqualTo(expected.get(i));
      assertThat(json.readValue(text, SandboxEvent.class)).isEqualTo(events.get(i));
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"type\":\"telemetry\"}",
        "{\"data\":\"no type\"}",
        "{\"type\":\"violation\"}",
        "{\"type\":\"stdout\"}",
        "[]",
      })
  void refusesMalformedEvents(String text) {
    assertThatThrownBy(() -> json.readValue(text, SandboxEvent.class))
        .isInstanceOf(JsonProcessingException.class);
  }
}
