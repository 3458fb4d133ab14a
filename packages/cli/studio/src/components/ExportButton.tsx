import { useMutation } from "@tanstack/react-query";
import { download } from "../api.js";
import { ErrorNote } from "./Status.js";

/**
 * Saves a conversation as NDJSON (writes allowed only). A fetch with the token, not a link: a
 * plain download would carry no credential.
 */
export function ExportButton({ id }: { id: string }) {
  const save = useMutation({
    mutationFn: () => download(`/api/actions/conversations/${encodeURIComponent(id)}/export`),
  });
  return (
    <>
      <button type="button" disabled={save.isPending} onClick={() => save.mutate()}>
        Export NDJSON
      </button>
      {save.error ? <ErrorNote error={save.error} /> : null}
    </>
  );
}
