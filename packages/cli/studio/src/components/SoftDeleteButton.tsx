import type { Conversation } from "@message-store/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { ConversationAction } from "../../../src/studio/api-types.js";
import { postJson } from "../api.js";
import { ErrorNote } from "./Status.js";

/**
 * Soft-deletes a live conversation (with its messages and traces) or restores a deleted one
 * (writes allowed only), then reloads every view of it and the lists.
 */
export function SoftDeleteButton({ conversation }: { conversation: Conversation }) {
  const client = useQueryClient();
  const deleted = conversation.deletedAt !== null;
  const action = useMutation({
    mutationFn: () =>
      postJson<ConversationAction>(
        `/api/actions/conversations/${encodeURIComponent(conversation.id)}/${deleted ? "restore" : "delete"}`,
        {},
      ),
    onSuccess: () =>
      Promise.all(
        ["conversation", "transcript", "context", "conversations", "text-search"].map((key) =>
          client.invalidateQueries({ queryKey: [key] }),
        ),
      ),
  });
  return (
    <>
      <button
        type="button"
        className={deleted ? "" : "danger"}
        disabled={action.isPending}
        onClick={() => action.mutate()}
      >
        {deleted ? "Restore" : "Delete"}
      </button>
      {action.error ? <ErrorNote error={action.error} /> : null}
    </>
  );
}
