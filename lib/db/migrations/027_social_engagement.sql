-- Engagement of an agent's posts and its follower history (api/dashboard social reads). X
-- counts likes, replies, reposts, quotes and impressions itself (`public_metrics`); the social
-- poller stores the counts of every post it reads, as of that read, and the follower count of
-- the last poll of each hour.
CREATE TABLE app.social_post_metrics (
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  tweet_id text NOT NULL CHECK (tweet_id ~ '^[0-9]{1,19}$'),
  like_count integer NOT NULL CHECK (like_count >= 0),
  reply_count integer NOT NULL CHECK (reply_count >= 0),
  retweet_count integer NOT NULL CHECK (retweet_count >= 0),
  quote_count integer NOT NULL CHECK (quote_count >= 0),
  -- X gives impressions only to some callers: null when the answer had none.
  impression_count integer CHECK (impression_count >= 0),
  counted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_id, tweet_id)
);

CREATE TABLE app.social_follower_hours (
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  hour timestamptz NOT NULL,
  follower_count integer NOT NULL CHECK (follower_count >= 0),
  polled_at timestamptz NOT NULL,
  PRIMARY KEY (agent_id, hour)
);
