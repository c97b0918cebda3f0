/**
 * The saga's plan: stages run one after another; the lanes of a stage run at once, each its
 * steps in order. A step that sends (`*-sent`) does not wait for its receipts; the matching
 * `*-mined` step does, so independent transactions share a block. Kill points (test mode) sit
 * after each step, so a crash between "sent" and "mined" is tested too.
 */
export const SAGA_STAGES = [
  [["wallet"]],
  // Funding and the Safe: two relayer transactions, consecutive nonces, one block; the identity
  // from a wallet prepared before the request (it holds its gas) goes out beside them.
  [["funding-sent"], ["identity-prepared"]],
  // The launchpad's signed args (off chain) while the funding is mined and the identity of an
  // unprepared wallet sent after it (a block later), and mined.
  [["launchpad"], ["funding-mined", "identity-sent", "identity-mined"]],
  // createToken, then the ServiceRegistry entry of the token its receipt names.
  [["create-sent", "create-mined", "register-sent", "register-mined"]],
] as const;

/** Every step, in plan order. */
export const SAGA_STEPS = SAGA_STAGES.flat(2);
export type SagaStep = (typeof SAGA_STEPS)[number];

/** Kill points inside steps: signed relayer transactions stored, not yet broadcast. */
export const STORE_KILL_POINTS = ["funding-stored", "register-stored"] as const;
