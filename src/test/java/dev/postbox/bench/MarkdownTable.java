package dev.postbox.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A GitHub Markdown table with padded columns; numeric-looking columns are right-aligned. */
final class MarkdownTable {
  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  MarkdownTable(String... headers) {
    this.headers = List.of(headers);
  }

  MarkdownTable row(String... cells) {
    if (cells.length != headers.size()) {
      throw new IllegalArgumentException(
          "expected " + headers.size() + " cells but got " + Arrays.toString(cells));
    }
    rows.add(List.of(cells));
    return this;
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  @Override
  public String toString() {
    int[] widths = new int[headers.size()];
    boolean[] right = new boolean[headers.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = Math.max(3, headers.get(i).length());
      right[i] = i > 0;
      for (List<String> row : rows) {
        widths[i] = Math.max(widths[i], row.get(i).length());
        right[i] &= row.get(i).matches("[-–0-9.,×%/ ]*|\\*?\\*?[-0-9.,×]+\\*?\\*?");
      }
    }
    StringBuilder out = new StringBuilder();
    line(out, headers, widths, right);
    out.append('|');
    for (int i = 0; i < widths.length; i++) {
      out.append(' ')
          .append("-".repeat(widths[i] - (right[i] ? 1 : 0)))
          .append(right[i] ? ":" : "")
          .append(" |");
    }
    out.append('\n');
    for (List<String> row : rows) {
      line(out, row, widths, right);
    }
    return out.toString();
  }

  private static void line(StringBuilder out, List<String> cells, int[] widths, boolean[] right) {
    out.append('|');
    for (int i = 0; i < widths.length; i++) {
      String cell = cells.get(i);
      String pad = " ".repeat(widths[i] - cell.length());
      out.append(' ').append(right[i] ? pad + cell : cell + pad).append(" |");
    }
    out.append('\n');
  }
}
