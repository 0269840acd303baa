package dev.pushgate.appliance.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pushgate.appliance.runs.RunRequestException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code POST /v1/runs/{id}/findings} bodies: only end-of-run findings reach the audit; anything
 * else is a 400 before the run or the audit is looked at (neither exists here).
 */
class RunEndFindingsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{}                                       | findings must be a non-empty array of {action,"
          + " target, detail}",
      "{\"findings\": []}                       | findings must be a non-empty array of {action,"
          + " target, detail}",
      "{\"findings\": [{\"action\": \"git-metadata\", \"target\": \"/w/.git\"}]}"
          + " | each finding needs action, target and detail as strings",
      "{\"findings\": [{\"action\": \"file-write*\", \"target\": \"/w\", \"detail\": \"x\"}]}"
          + " | not an end-of-run finding: action file-write*",
      "{\"findings\": [{\"action\": \"git-metadata\", \"target\": \"/w\", \"detail\": \"x\"},"
          + " {\"action\": \"network\", \"target\": \"h\", \"detail\": \"y\"}]}"
          + " | not an end-of-run finding: action network",
  })
  void aBodyThatIsNotEndOfRunFindingsIsRefusedWhole(String body, String message)
      throws Exception {
    RunEndFindings findings = new RunEndFindings(null, null);
    RunRequestException e = catchThrowableOfType(
        () -> findings.record("run_1", JSON.readTree(body)), RunRequestException.class);
    assertThat(e.status()).isEqualTo(RunRequestException.Status.BAD_REQUEST);
    assertThat(e.getMessage()).isEqualTo(message);
  }
}
