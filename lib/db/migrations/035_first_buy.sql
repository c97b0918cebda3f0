-- An agent's first buy at launch (four.meme's preSale, bought inside createToken): what the
-- TokenPurchase of createToken's receipt says the wallet got, for the launch's answer. The
-- request (app.launch_sagas.request) carries what was asked: firstBuyWei and antiSniper.
ALTER TABLE app.launch_sagas ADD COLUMN first_buy jsonb;
