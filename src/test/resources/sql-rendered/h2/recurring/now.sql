-- params: none
SELECT CURRENT_TIMESTAMP(6) AS db_now
