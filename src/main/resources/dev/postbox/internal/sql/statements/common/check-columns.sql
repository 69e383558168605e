-- A dispatcher's check at start that a table has the columns it needs: reads no row. No params.
SELECT {columns} FROM {table} WHERE 1 = 0
