package dev.pushgate.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The results, as Markdown: printed as they come, and written to {@code results.md}. */
final class Report {
  private final StringBuilder md = new StringBuilder();
  private final List<List<String>> summary = new ArrayList<>();
  private final PrintStream console;

  Report(PrintStream console) {
    this.console = console;
  }

  void heading(String title) {
    append("\n### " + title + "\n\n");
  }

  void text(String text) {
    append(text.endsWith("\n") ? text + "\n" : text + "\n\n");
  }

  void table(List<String> header, List<List<String>> rows) {
    append(render(header, rows) + "\n");
  }

  /** One line of the summary table that heads the report. */
  void summary(String measure, String direct, String gateway, String ratio, String target,
      String met) {
    summary.add(List.of(measure, direct, gateway, ratio, target, met));
  }

  /** The summary, in the order of the list (the rows' leading numbers). */
  String summaryTable() {
    List<List<String>> sorted = new ArrayList<>(summary);
    sorted.sort(java.util.Comparator.comparing(r -> r.get(0).split(" ", 2)[0]));
    return render(List.of("measure", "direct", "gateway", "gateway / direct", "target", "met"),
        sorted);
  }

  String body() {
    return md.toString();
  }

  void write(Path file, String head) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, head + "\n## Summary\n\n" + summaryTable() + "\n## Details\n"
        + md, StandardCharsets.UTF_8);
  }

  private void append(String s) {
    md.append(s);
    console.print(s);
    console.flush();
  }

  static String render(List<String> header, List<List<String>> rows) {
    StringBuilder t = new StringBuilder();
    t.append("| ").append(String.join(" | ", header)).append(" |\n|");
    for (int i = 0; i < header.size(); i++) {
      t.append(i == 0 ? "---|" : "---:|");
    }
    t.append('\n');
    for (List<String> r : rows) {
      t.append("| ").append(String.join(" | ", r)).append(" |\n");
    }
    return t.toString();
  }
}
