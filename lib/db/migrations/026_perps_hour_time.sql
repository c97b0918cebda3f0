-- The venue's own time of each hour's last read (api/perps): the PnL series subtracts the
-- deposits and withdrawals the venue's ledger dates up to the time the venue valued the
-- account, not up to when we happened to poll. Rows written before this column read their
-- polled_at instead.
ALTER TABLE app.perps_account_hours ADD COLUMN venue_time timestamptz;
