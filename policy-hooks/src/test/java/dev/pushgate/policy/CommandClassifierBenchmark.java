package dev.pushgate.policy;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * How long judging one command line takes, cycling through every line of the corpus. Not run by
 * {@code mvn test}; run it with
 *
 * <pre>
 * mvn -B -q -pl policy-hooks -Pbench test-compile exec:exec
 * </pre>
 *
 * The score is microseconds per line (goal: under 50).
 */
@State(Scope.Thread)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CommandClassifierBenchmark {
  private String[] lines;
  private WorkspaceRules rules;
  private int next;

  @Setup(Level.Trial)
  public void load() throws Exception {
    List<CommandCorpusTest.Case> corpus = CommandCorpusTest.corpus();
    lines = corpus.stream().map(CommandCorpusTest.Case::command).toArray(String[]::new);
    rules = WorkspaceRules.parse(WorkspaceRulesTest.EXAMPLE);
  }

  private String nextLine() {
    String line = lines[next];
    next = next + 1 == lines.length ? 0 : next + 1;
    return line;
  }

  /** Parse, classify and judge one line in chat mode under the example rules. */
  @Benchmark
  public CommandJudgement judgeOneLine() {
    return CommandPolicy.judge(nextLine(), Mode.CHAT, rules);
  }

  /** Parse and classify only, without the policy. */
  @Benchmark
  public List<Finding> classifyOneLine() {
    try {
      return CommandClassifier.classify(ShellParser.parse(nextLine()));
    } catch (ShellSyntaxException e) {
      return List.of();
    }
  }
}
