-- The claim condition ({filter}) that a keyed row of {table} is the head of its key: no row of its
-- key before it in a blocking state ({noPriors}: one no-prior; on H2 one per state joined by AND,
-- each a range of the key index; on MySQL the key's first pending row, and no parked row before it).
({table}.{key} IS NULL OR {noPriors})
