-- A part of the claim statements that include it ({_runs}).
claim$next (next_id, next_at, next_pos, head_at, head_id) AS MATERIALIZED (
    SELECT n.id, n.available_at, n.pos, h.head_at, h.head_id FROM claim$heads h CROSS JOIN LATERAL (
      SELECT f.id, f.available_at, row_number() OVER (ORDER BY f.id) AS pos,
        bool_and(f.available_at <= {now}) OVER (ORDER BY f.id) AS ready
      FROM (
        SELECT id, available_at FROM (
          SELECT id, available_at FROM {table} claim$follower
          WHERE claim$follower.{key} = h.head_key AND claim$follower.state = 0
            AND claim$follower.id > h.head_id
          ORDER BY claim$follower.id LIMIT {limit}) claim$capped
        LIMIT (SELECT ({limit} - 1) / GREATEST(COUNT(*), 1) FROM claim$heads)) f) n
    WHERE h.head_key IS NOT NULL AND n.ready),
  claim$due (due_id, due_available_at, due_charge) AS MATERIALIZED (
    SELECT due_id, due_available_at, due_charge FROM (
      SELECT head_id AS due_id, head_at AS due_available_at, 1 AS due_charge FROM claim$heads
      UNION ALL
      (SELECT next_id, next_at, 0 FROM claim$next ORDER BY next_pos, head_at, head_id
       LIMIT {limit} - (SELECT COUNT(*) FROM claim$heads))) claim$all
    LIMIT (SELECT room FROM claim$lease))
