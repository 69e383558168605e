-- The stats' count of keys blocked by a parked row ({blockedKeys}).
(SELECT COUNT(DISTINCT {key}) FROM {table} WHERE state = 2 AND {key} IS NOT NULL)
