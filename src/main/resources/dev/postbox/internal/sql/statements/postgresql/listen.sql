-- Listens for the notifications of a table's adds on the dispatcher's own connection. No params.
LISTEN "{channel}"
