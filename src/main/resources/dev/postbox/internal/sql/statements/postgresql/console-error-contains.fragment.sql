-- The console's filter condition that a row's last error contains a text, case-sensitively and
-- literally (PostgreSQL has no INSTR). Params: the text.
strpos(last_error, ?) > 0
