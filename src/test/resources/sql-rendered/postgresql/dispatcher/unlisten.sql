-- params: none
UNLISTEN *
