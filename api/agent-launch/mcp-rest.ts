export type LaunchMcpParameters = {
  /** Performs an HTTP request against the launch API (in-process app, or the remote API). */
  call: (path: string, init: RequestInit) => Promise<Response>;
  /** The agent key this session authenticates with (MCP request header, or AGENT_API_KEY). */
  apiKey?: string;
};

/**
 * An MCP tool's answer from one REST call with the session's agent key: the answer's status and
 * body as the structured result, an error unless the body says `ok`. A tool is the REST route
 * itself, so its results and errors are exactly the REST ones.
 *
 * @example
 * return restTool(p, "POST", "/v2/agents/launch", args);
 */
export async function restTool(
  p: LaunchMcpParameters,
  method: string,
  path: string,
  body?: unknown,
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (p.apiKey) headers.authorization = `Bearer ${p.apiKey}`;
  const res = await p.call(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await res
    .json()
    .catch(() => ({ ok: false, error: "ORCHESTRATOR_UNAVAIL" }))) as Record<string, unknown>;
  const result = { status: res.status, ...answer };
  return {
    content: [{ type: "text" as const, text: JSON.stringify(result) }],
    structuredContent: result,
    isError: answer.ok !== true,
  };
}
