-- An add: inserts rows on the caller's connection, in the caller's transaction. {values}: one
-- "(?, …)" tuple per row, the table's own, with its clock expressions. Params: per row, the
-- table's columns as its tuple binds them.
INSERT INTO {table} ({columns}) VALUES {values}
