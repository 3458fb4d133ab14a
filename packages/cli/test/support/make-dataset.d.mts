export interface DatasetCounts {
  conversations: number;
  messages: number;
  turnTraces: number;
}
/** Deterministic sample data as the lines of a message-store export (see make-dataset.mjs). */
export function makeDataset(options: {
  conversations: number;
  perConversation: number;
  seed?: number;
}): { lines: string[]; counts: DatasetCounts };
