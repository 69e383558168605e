-- What insert-locking adds to skip the rows whose unique value ({unique}) is stored already.
 ON CONFLICT ({unique}) DO NOTHING
