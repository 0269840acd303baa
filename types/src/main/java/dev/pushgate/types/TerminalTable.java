package dev.pushgate.types;

import java.util.ArrayList;
import java.util.List;

/**
 * A table for a terminal: columns as wide as their widest cell, the last one unpadded. Every
 * cell is made visible first: refs, commands and reasons come from agents, and none may redraw
 * or hide part of the table.
 */
public final class TerminalTable {
  private final List<String[]> lines = new ArrayList<>();

  public TerminalTable(String... head) {
    lines.add(head);
  }

  public TerminalTable row(String... cells) {
    String[] visible = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      visible[i] = UntrustedText.visible(cells[i] == null ? "" : cells[i]);
    }
    lines.add(visible);
    return this;
  }

  @Override
  public String toString() {
    int columns = lines.get(0).length;
    int[] width = new int[columns];
    for (String[] l : lines) {
      for (int i = 0; i < columns - 1; i++) {
        width[i] = Math.max(width[i], l[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] l : lines) {
      StringBuilder s = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        s.append(i == columns - 1 ? l[i] : String.format("%-" + width[i] + "s  ", l[i]));
      }
      out.append(s.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }
}
