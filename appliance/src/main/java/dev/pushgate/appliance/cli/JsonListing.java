package dev.pushgate.appliance.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.function.Function;
import picocli.CommandLine.Option;

/**
 * How a listing command ({@code pushgate runs}, {@code pushgate approvals}) prints what the
 * control API lists: with {@code --json} one JSON line an item, else a line saying there is
 * none, else the command's own text for a terminal.
 */
final class JsonListing {
  @Option(names = "--json", description = "One JSON object a line, an item each"
      + " (docs/operations.md lists the fields).")
  boolean json;

  /** Prints {@code items}: as JSON lines, as {@code none} when there are none, or as text. */
  void print(JsonNode items, String none, Function<JsonNode, String> text) {
    if (json) {
      items.forEach(i -> System.out.println(JsonLines.of(i)));
    } else if (items.isEmpty()) {
      System.out.println(none);
    } else {
      System.out.print(text.apply(items));
    }
  }
}
