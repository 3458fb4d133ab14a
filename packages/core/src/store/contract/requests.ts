import type { Message } from "../../models/message.js";
import type { Scope, TurnTraceFilter } from "../../models/queries.js";
import type { PageRequest } from "../../paging/page-request.js";

/** What every driver request carries: the records it may see and touch (see {@link Scope}). */
export interface DriverRequest {
  readonly scope: Scope;
}

/** A call on one record by id. */
export interface ByIdRequest extends DriverRequest {
  readonly id: string;
}

/** A read by id: `includeDeleted` says whether a soft-deleted record is returned. */
export interface ReadByIdRequest extends ByIdRequest {
  readonly includeDeleted: boolean;
}

/** A conversation list: soft-deleted ones only with `includeDeleted`. */
export interface ConversationPageRequest<K> extends DriverRequest {
  readonly includeDeleted: boolean;
  readonly page: PageRequest<K>;
}

/** A message with the store-assigned receipt order that breaks timestamp ties. */
export interface SequencedMessage {
  message: Message;
  sequence: number;
}

/** Filters of a trace list besides the owners, which travel as the request's scope. */
export type TraceFilter = Omit<TurnTraceFilter, "userId" | "tenantId">;
