-- params: none
COMMIT
