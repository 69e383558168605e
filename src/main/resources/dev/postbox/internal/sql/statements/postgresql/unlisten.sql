-- Stops listening before the connection goes back to the pool. No params.
UNLISTEN *
