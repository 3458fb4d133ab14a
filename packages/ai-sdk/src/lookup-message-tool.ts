import {
  LOOKUP_MESSAGE_DESCRIPTION,
  type LookupMessageInput,
  type LookupMessageResult,
  type LookupScope,
  lookupMessage,
  lookupMessageParameters,
  type MessageStoreApi,
} from "@message-store/core";
import { jsonSchema, type Tool, tool } from "ai";

/**
 * The lookup tool as an AI SDK `tool()`: lets the model fetch the full text of a message that
 * `getImmediateContext` / `loadSessionMessages` / `loadModelMessages` showed compressed (the
 * compression hint names the tool and the id). Register it under core's `LOOKUP_MESSAGE_TOOL`
 * name, which the hint uses: `tools: { [LOOKUP_MESSAGE_TOOL]: lookupMessageTool(store, scope) }`.
 *
 * The input schema is core's `lookupMessageParameters` (`{ id: string }`, one definition for the
 * OpenAI and AI SDK tools). Each call runs core's `lookupMessage` through
 * `store.forUser(scope.userId)` (and `forTenant`), limited to `scope.conversationId` when given:
 * the model only reads its own user's live messages, and an unknown, foreign, soft-deleted or
 * malformed id is answered `{ found: false, error }` (never thrown). Throws `ValidationError`
 * here, at creation, for an invalid `scope.userId`; the tool's calls reject only with the
 * store's errors (`ConnectionError`, …).
 */
export function lookupMessageTool(
  store: MessageStoreApi,
  scope: LookupScope,
): Tool<LookupMessageInput, LookupMessageResult> {
  store.forUser(scope.userId); // validates the scope now rather than at the model's first call
  return tool({
    description: LOOKUP_MESSAGE_DESCRIPTION,
    inputSchema: jsonSchema<LookupMessageInput>(lookupMessageParameters),
    execute: (input: LookupMessageInput) => lookupMessage(store, input, scope),
  });
}
