-- params: none
SELECT UTC_TIMESTAMP(6) AS db_now
