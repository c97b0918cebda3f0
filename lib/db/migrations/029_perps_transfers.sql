-- Transfers on the perps venue (to or from another account or a sub-account, between spot and
-- perps) are feed events and flows of the PnL series from this version on (perps.transfer.in,
-- perps.transfer.out); the perps poller used to read past them. Each account's ledger cursor and
-- account signature are forgotten, so its next poll reads the ledger again over a first poll's
-- lookback (7 days, POLLER_LIMITS.perps.lookbackMs); the ids of the lines it already stored keep
-- them single. Transfers older than that stay out of the feed and the series.
UPDATE app.poller_state SET cursor = cursor - 'ledger' - 'sig' WHERE poller = 'perps';
