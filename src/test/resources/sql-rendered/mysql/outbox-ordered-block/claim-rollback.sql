-- params: none
ROLLBACK
