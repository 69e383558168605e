-- An add that skips the rows whose unique value ({unique}) is stored already, without an error
-- (which on PostgreSQL would abort the caller's transaction). Params: as insert.
INSERT INTO {table} ({columns}) VALUES {values} ON CONFLICT ({unique}) DO NOTHING
