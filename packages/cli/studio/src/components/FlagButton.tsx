import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { MessageView } from "../../../src/studio/api-types.js";
import { postJson } from "../api.js";
import { ErrorNote } from "./Status.js";

/** Flags or unflags a message (writes allowed only), then reloads what shows its conversation. */
export function FlagButton({ message }: { message: MessageView }) {
  const client = useQueryClient();
  const flag = useMutation({
    mutationFn: (flagged: boolean) =>
      postJson<MessageView>(`/api/actions/messages/${encodeURIComponent(message.id)}/flag`, {
        flagged,
      }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: ["transcript", message.conversationId] }),
        client.invalidateQueries({ queryKey: ["context", message.conversationId] }),
      ]),
  });
  return (
    <>
      <button
        type="button"
        className="small"
        disabled={flag.isPending}
        onClick={() => flag.mutate(!message.isFlagged)}
      >
        {message.isFlagged ? "Unflag" : "Flag"}
      </button>
      {flag.error ? <ErrorNote error={flag.error} /> : null}
    </>
  );
}
