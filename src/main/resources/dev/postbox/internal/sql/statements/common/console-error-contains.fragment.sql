-- The console's filter condition that a row's last error contains a text, case-sensitively and
-- literally (no LIKE: SQLite's LIKE ignores case, and its wildcards would need escaping).
-- Params: the text.
INSTR(last_error, ?) > 0
