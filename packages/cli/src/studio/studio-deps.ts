import type { MessageStore } from "@message-store/core";
import type { StudioInfo } from "./api-types.js";

/** What every route of the studio reads: the open store and what the server was started with. */
export interface StudioDeps {
  store: MessageStore;
  info: StudioInfo;
}
