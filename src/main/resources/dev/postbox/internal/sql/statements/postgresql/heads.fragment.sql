-- A part of the claim statements that include it ({_heads}).
claim$window (window_id, window_key) AS MATERIALIZED (
    SELECT id, {key} FROM {table} WHERE state = 0 AND available_at <= {now}
    ORDER BY available_at, id LIMIT {window}),
  claim$heads (head_id, head_key, head_at) AS MATERIALIZED (
    SELECT id, {key}, available_at FROM {table}
    WHERE id = ANY (ARRAY(
        SELECT window_id FROM claim$window WHERE window_key IS NULL
        UNION ALL SELECT MIN(window_id) FROM claim$window
          WHERE window_key IS NOT NULL GROUP BY window_key
        UNION ALL SELECT unnest(far_ids) FROM claim$lease))
      AND state = 0 AND available_at <= {now}{filter}
    ORDER BY available_at, id LIMIT {limit} FOR UPDATE SKIP LOCKED)
