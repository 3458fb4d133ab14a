import type { MessageRole } from "../models/message.js";
import type { MessageStoreApi } from "../store/message-store-api.js";

/** The name of the tool the compression hint tells the model to call. */
export const LOOKUP_MESSAGE_TOOL = "lookup_message";

/** What the tool is for, as the model reads it. */
export const LOOKUP_MESSAGE_DESCRIPTION =
  "Returns the full text of an earlier message of this conversation that was shown truncated. " +
  "Call it with the id named in the truncation hint.";

/** What the model passes to the tool. */
export interface LookupMessageInput {
  id: string;
}

/**
 * The tool's input as a plain JSON schema: OpenAI `strict` mode accepts it, and the AI SDK takes
 * it as `jsonSchema<LookupMessageInput>(lookupMessageParameters)`.
 */
export const lookupMessageParameters: {
  type: "object";
  properties: { id: { type: "string"; description: string } };
  required: string[];
  additionalProperties: false;
} = {
  type: "object",
  properties: {
    id: { type: "string", description: "The message id named in the truncation hint." },
  },
  required: ["id"],
  additionalProperties: false,
};

/**
 * The tool as an OpenAI Chat Completions function tool (`tools: [lookupMessageToolDefinition]`).
 * For the Responses API, spread its `function` member: `{ type: "function", ...def.function }`.
 */
export const lookupMessageToolDefinition = {
  type: "function",
  function: {
    name: LOOKUP_MESSAGE_TOOL,
    description: LOOKUP_MESSAGE_DESCRIPTION,
    parameters: lookupMessageParameters,
    strict: true,
  },
} as const;

/** What the tool returns to the model: the full text, or why there is none (see {@link lookupMessage}). */
export type LookupMessageResult =
  | { found: true; id: string; role: MessageRole; content: string; timestamp: number }
  | { found: false; id: string | null; error: string };

/** Whose messages the tool may read: the conversation's user (and tenant), and which conversation. */
export interface LookupScope {
  userId: string;
  tenantId?: string;
  /** Only messages of this conversation (the one the model is talking in); any of the user's when absent. */
  conversationId?: string;
}

/**
 * Runs the lookup tool: reads the message through `store.forUser(userId)` (and `forTenant` when
 * a tenant is given), so the model can only fetch its own user's live messages. Resolves to the
 * full text, or to `{ found: false }` when the id is unknown, belongs to someone else (or to
 * another conversation than `scope.conversationId`), is soft-deleted or is not a valid id (the
 * model's input is never trusted, and never throws for it).
 *
 * A flagged message is withheld: `{ found: false }` whose `error` says it was flagged, and never
 * its text. The tool shows the model only what the context window would
 * (`getImmediateContext` leaves flagged messages out): flagging is how an application takes a
 * message away from the model, so the tool must not hand it back. The reason is given (in the
 * user's own conversation it reveals nothing new) so that the model does not ask again or guess.
 *
 * Throws `ValidationError` for an invalid `scope` (a programming error), and the store's errors
 * (`ConnectionError`, …).
 */
export async function lookupMessage(
  store: MessageStoreApi,
  input: unknown,
  scope: LookupScope,
): Promise<LookupMessageResult> {
  const view = scopedView(store, scope);
  const id = (input as { id?: unknown } | null)?.id;
  if (typeof id !== "string" || id.length < 1 || id.length > 256 || !id.isWellFormed()) {
    return { found: false, id: null, error: "id must be the message id named in the hint" };
  }
  const found = await view.getMessage(id);
  const message =
    found && (scope.conversationId === undefined || found.conversationId === scope.conversationId)
      ? found
      : null;
  if (!message) return { found: false, id, error: `no message with id ${JSON.stringify(id)}` };
  if (message.isFlagged) {
    return {
      found: false,
      id,
      error: `message ${JSON.stringify(id)} was flagged and is withheld; continue without it`,
    };
  }
  return {
    found: true,
    id,
    role: message.role,
    content: message.originalContent,
    timestamp: message.timestamp,
  };
}

function scopedView(store: MessageStoreApi, scope: LookupScope): MessageStoreApi {
  const user = store.forUser(scope.userId);
  return scope.tenantId === undefined ? user : user.forTenant(scope.tenantId);
}
