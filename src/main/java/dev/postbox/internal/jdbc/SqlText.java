package dev.postbox.internal.jdbc;

import java.util.List;

/** Building statement text: parameter marks, and values written in where a batch needs them. */
public final class SqlText {
  private SqlText() {}

  /** {@code n} parameter marks: {@code ?, ?, ?}. */
  public static String marks(int n) {
    return marks(n, "?");
  }

  /** {@code n} times {@code mark}, comma-separated: {@code (?), (?)}. */
  public static String marks(int n, String mark) {
    StringBuilder s = new StringBuilder(n * (mark.length() + 2));
    for (int i = 0; i < n; i++) {
      s.append(i == 0 ? "" : ", ").append(mark);
    }
    return s.toString();
  }

  /**
   * {@code sql} with its parameters written in: the {@code i}-th {@code ?} replaced by the {@code
   * i}-th of {@code literals} (SQL literals already, e.g. digits). For statements whose only {@code
   * ?} are their parameters.
   */
  public static String inline(String sql, List<String> literals) {
    StringBuilder s = new StringBuilder(sql.length() + 16 * literals.size());
    int next = 0;
    for (int i = 0; i < sql.length(); i++) {
      char ch = sql.charAt(i);
      if (ch != '?') {
        s.append(ch);
      } else if (next < literals.size()) {
        s.append(literals.get(next++));
      } else {
        throw new IllegalArgumentException("more parameters than " + literals.size() + ": " + sql);
      }
    }
    if (next < literals.size()) {
      throw new IllegalArgumentException(
          next + " parameters, " + literals.size() + " values: " + sql);
    }
    return s.toString();
  }
}
