package dev.pushgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every line of {@code command-corpus.tsv}, judged in every mode under the default rules. */
class CommandCorpusTest {
  private static final Mode[] COLUMNS = {Mode.CHAT, Mode.PLAN, Mode.REVIEW, Mode.ORCHESTRATE};

  record Case(String command, Set<ActionClass> actions, Map<Mode, Decision> decisions) {
    @Override
    public String toString() {
      return command.replace("\n", "⏎");
    }
  }

  static List<Case> corpus() throws IOException {
    List<Case> cases = new ArrayList<>();
    try (InputStream in = CommandCorpusTest.class.getResourceAsStream("/command-corpus.tsv")) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      for (String line : text.split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\t", -1);
        if (f.length != 6) {
          throw new IllegalStateException("corpus line needs 6 columns: " + line);
        }
        Set<ActionClass> actions = EnumSet.noneOf(ActionClass.class);
        if (!f[1].equals("-")) {
          Arrays.stream(f[1].split(",")).map(ActionClass::fromId).forEach(actions::add);
        }
        Map<Mode, Decision> decisions = new EnumMap<>(Mode.class);
        for (int m = 0; m < COLUMNS.length; m++) {
          decisions.put(COLUMNS[m], Decision.fromId(f[2 + m]));
        }
        cases.add(new Case(f[0].replace("⏎", "\n"), actions, decisions));
      }
    }
    return cases;
  }

  static Stream<Arguments> lines() throws IOException {
    return corpus().stream().map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lines")
  void judgesTheLineAsTheCorpusSays(Case c) {
    for (Mode mode : Mode.values()) {
      CommandJudgement j = CommandPolicy.judge(c.command(), mode, WorkspaceRules.DEFAULT);
      assertThat(j.decision()).as("%s in %s mode (%s)", c, mode.id(), j.reason())
          .isEqualTo(c.decisions().get(mode));
      assertThat(j.actions()).as("action classes of %s in %s mode", c, mode.id())
          .isEqualTo(c.actions());
    }
  }

  @Test
  void corpusIsLargeAndCoversEveryActionClassAndDecision() throws IOException {
    List<Case> cases = corpus();
    assertThat(cases).hasSizeGreaterThanOrEqualTo(300);
    Set<ActionClass> seen = EnumSet.noneOf(ActionClass.class);
    cases.forEach(c -> seen.addAll(c.actions()));
    assertThat(seen).containsExactlyInAnyOrder(java.util.Arrays.stream(ActionClass.values())
        .filter(ActionClass::judgedOnCommands).toArray(ActionClass[]::new));
    for (Mode mode : Mode.values()) {
      Set<Decision> decisions = EnumSet.noneOf(Decision.class);
      cases.forEach(c -> decisions.add(c.decisions().get(mode)));
      assertThat(decisions).as(mode.id()).contains(Decision.ALLOW, Decision.DENY);
    }
  }
}
