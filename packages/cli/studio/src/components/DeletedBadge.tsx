import { formatTime } from "../format.js";

/** Marks a soft-deleted conversation or message (nothing for a live one). */
export function DeletedBadge({ deletedAt }: { deletedAt: number | null }) {
  if (deletedAt === null) return null;
  return (
    <span className="badge warn" title={`soft-deleted at ${formatTime(deletedAt)} UTC`}>
      ✕ deleted
    </span>
  );
}
