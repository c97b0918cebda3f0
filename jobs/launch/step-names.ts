/**
 * The saga's plan: stages run one after another; the lanes of a stage run at once, each its
 * steps in order. A step that sends (`*-sent`) does not wait for its receipts; the matching
 * `*-mined` step does, so independent transactions share a block. Kill points (test mode) sit
 * after each step, so a crash between "sent" and "mined" is tested too.
 */
export const SAGA_STAGES = [
  [["wallet"]],
  // All that needs only the wallet, at once: funding and the Safe (two relayer transactions,
  // consecutive nonces, one block), the identity from a wallet prepared before the request (it
  // holds its gas), and four.meme's signed create args (login and upload kept from before; the
  // treasury they name is the Safe's CREATE2 address, known before the Safe exists).
  [["funding-sent"], ["identity-prepared"], ["launchpad"]],
  // createToken as soon as the wallet can pay: at once from a wallet prepared with the launch's
  // budget (the request's first block, beside its identity), else once its funding is mined,
  // after the identity an unprepared wallet sends then (one nonce sequence). The Safe is mined
  // beside it: createToken names its address only.
  [
    ["funding-mined", "identity-sent", "create-sent", "identity-mined", "create-mined"],
    ["safe-mined"],
  ],
  // The ServiceRegistry entry of the token TokenCreate names in createToken's receipt.
  [["register-sent", "register-mined"]],
] as const;

/** Every step, in plan order. */
export const SAGA_STEPS = SAGA_STAGES.flat(2);
export type SagaStep = (typeof SAGA_STEPS)[number];

/** Kill points inside steps: signed relayer transactions stored, not yet broadcast. */
export const STORE_KILL_POINTS = ["funding-stored", "register-stored"] as const;
