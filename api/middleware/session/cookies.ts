/** Cookie names: `service_session` is the spec's patron cookie; SIWE has its own. */
export const COOKIES = {
  siwe: "siwe_session",
  patron: "service_session",
  oauthState: "oauth_state",
} as const;
