import type { MessageView } from "../../../src/studio/api-types.js";

/** `→ lookup_order({"orderId":"4512"})`: a tool call an assistant message made. */
export function ToolCallSignature({ call }: { call: MessageView["toolCalls"][number] }) {
  return (
    <>
      → <b>{call.toolName}</b>
      <code>({JSON.stringify(call.arguments)})</code>
    </>
  );
}
