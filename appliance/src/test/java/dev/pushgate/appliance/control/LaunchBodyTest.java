package dev.pushgate.appliance.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pushgate.appliance.runs.RunRequestException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code POST /v1/runs/{id}/launch} bodies: a bad one is a 400 naming the field, never a launch. */
class LaunchBodyTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void readsTheCommandAndTheWorkdir() throws Exception {
    LaunchBody b = parse("{\"command\": [\"sh\", \"-c\", \"echo hi\"], \"workdir\": \"/w/sub\"}");
    assertThat(b.command()).containsExactly("sh", "-c", "echo hi");
    assertThat(b.workdir()).isEqualTo("/w/sub");
  }

  @Test
  void theWorkdirMayBeLeftOutOrNull() throws Exception {
    assertThat(parse("{\"command\": [\"true\"]}").workdir()).isNull();
    assertThat(parse("{\"command\": [\"true\"], \"workdir\": null}").workdir()).isNull();
  }

  @Test
  void emptyArgumentsAfterTheProgramAreKept() throws Exception {
    assertThat(parse("{\"command\": [\"printf\", \"\"]}").command()).containsExactly("printf", "");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "[]                                    | the body must be a JSON object",
      "\"sh\"                                | the body must be a JSON object",
      "null                                  | the body must be a JSON object",
      "{}                                    | command is required",
      "{\"command\": null}                   | command is required",
      "{\"command\": \"sh -c id\"}           | command must be an array of strings, not a string",
      "{\"command\": {\"0\": \"sh\"}}        | command must be an array of strings, not a object",
      "{\"command\": []}                     | command is empty: it needs at least the program",
      "{\"command\": [\"\"]}                 | command[0], the program, is empty",
      "{\"command\": [\"sh\", 1]}            | command[1] must be a string",
      "{\"command\": [\"sh\", null]}         | command[1] must be a string",
      "{\"command\": [\"sh\", [\"x\"]]}      | command[1] must be a string",
      "{\"command\": [\"sh\", \"a\\u0000b\"]} | command[1] has a NUL character",
      "{\"command\": [\"sh\"], \"env\": {}}  | unknown field \"env\": a launch takes command and workdir",
      "{\"command\": [\"sh\"], \"workdir\": 7} | workdir must be a string",
      "{\"command\": [\"sh\"], \"workdir\": \"\"} | workdir must be an absolute path",
      "{\"command\": [\"sh\"], \"workdir\": \"sub/dir\"} | workdir must be an absolute path",
      "{\"command\": [\"sh\"], \"workdir\": \"/a\\u0000b\"} | workdir must be an absolute path",
  })
  void refusesMalformedBodiesNamingTheField(String body, String message) {
    RunRequestException e = catchThrowableOfType(() -> parse(body), RunRequestException.class);
    assertThat(e).as(body).isNotNull();
    assertThat(e.status()).isEqualTo(RunRequestException.Status.BAD_REQUEST);
    assertThat(e.getMessage()).startsWith(message);
  }

  @Test
  void anUnknownFieldsNameIsPrintableAndBounded() {
    ObjectNode body = JSON.createObjectNode();
    body.putArray("command").add("sh");
    body.put("x\n\u001b[31m" + "y".repeat(500), 1);
    RunRequestException e = catchThrowableOfType(() -> LaunchBody.parse(body),
        RunRequestException.class);
    assertThat(e.getMessage()).doesNotContain("\n").doesNotContain("\u001b")
        .contains("x\\x0a\\x1b[31m").hasSizeLessThan(250);
  }

  @Test
  void boundsTheNumberAndTheLengthOfTheArguments() {
    ObjectNode many = JSON.createObjectNode();
    ArrayNode argv = many.putArray("command");
    for (int i = 0; i <= LaunchBody.MAX_ARGUMENTS; i++) {
      argv.add("a");
    }
    assertThat(catchThrowableOfType(() -> LaunchBody.parse(many), RunRequestException.class))
        .hasMessage("command has 1025 elements; at most 1024");

    ObjectNode longOne = JSON.createObjectNode();
    longOne.putArray("command").add("echo").add("x".repeat(LaunchBody.MAX_COMMAND_CHARS));
    assertThat(catchThrowableOfType(() -> LaunchBody.parse(longOne), RunRequestException.class))
        .hasMessage("command is 262148 characters long; at most 262144");

    ObjectNode longPath = JSON.createObjectNode();
    longPath.putArray("command").add("true");
    longPath.put("workdir", "/" + "d".repeat(LaunchBody.MAX_PATH_CHARS));
    assertThat(catchThrowableOfType(() -> LaunchBody.parse(longPath), RunRequestException.class))
        .hasMessageStartingWith("workdir must be an absolute path of at most 4096 characters");
  }

  @Test
  void theCommandIsCopied() throws Exception {
    assertThat(new LaunchBody(new java.util.ArrayList<>(List.of("a")), null).command())
        .isUnmodifiable();
  }

  private static LaunchBody parse(String body) throws Exception {
    return LaunchBody.parse(JSON.readTree(body));
  }
}
