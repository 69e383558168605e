-- params: none
SELECT CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) AS db_now
