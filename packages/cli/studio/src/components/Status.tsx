import { ApiError } from "../api.js";

/** An error from the API, said plainly (a missing token is the common one). */
export function ErrorNote({ error }: { error: unknown }) {
  const message =
    error instanceof ApiError && error.status === 401
      ? "The access token is missing or outdated: open the URL that `message-store studio` printed."
      : error instanceof Error
        ? error.message
        : String(error);
  return (
    <p className="error" role="alert">
      {message}
    </p>
  );
}

/** Shown while a request is under way. */
export function Loading({ what }: { what: string }) {
  return <p className="muted">Loading {what}…</p>;
}

/** A "Load more" button for cursor-paged lists. */
export function LoadMore({
  hasMore,
  loading,
  onMore,
}: {
  hasMore: boolean;
  loading: boolean;
  onMore: () => void;
}) {
  if (!hasMore) return <p className="muted end">End of the list.</p>;
  return (
    <button type="button" className="more" onClick={onMore} disabled={loading}>
      {loading ? "Loading…" : "Load more"}
    </button>
  );
}
