-- What finishing a job also sets ({doneSet}): its dedupe key is free again.
, dedupe_key = NULL, running_key = NULL
