-- params: none
SELECT statement_timestamp() AS db_now
