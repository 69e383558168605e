-- params: none
SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true);
