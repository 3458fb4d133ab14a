import { BRIDGE_BACKENDS, type BridgeBackend } from "@message-store/test-servers/bridge";

/** The AI SDK major the running test project resolves `ai` to (see vitest.config.ts). */
export const AI_MAJOR = Number(process.env.AI_MAJOR ?? "7");

/** The response messages of all steps: `responseMessages` on ai 7, `response.messages` before. */
export async function responseMessagesOf(result: object): Promise<never[]> {
  const r = result as {
    responseMessages?: PromiseLike<never[]>;
    response: PromiseLike<{ messages: never[] }>;
  };
  return AI_MAJOR >= 7 ? await r.responseMessages! : (await r.response).messages;
}

/** The backends the tests run on: JSON and PostgreSQL on ai 7 and 6, JSON alone on ai 5. */
export const BACKENDS: readonly BridgeBackend[] = AI_MAJOR >= 6 ? BRIDGE_BACKENDS : ["json"];
