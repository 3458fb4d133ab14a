import { IntegrityError, type TurnTrace } from "@message-store/core";
import type { RequestOf } from "@message-store/core/adapter";
import { type PlantContext, planted } from "./planted.js";

/** A rule a driver checks before passing the traces to the reference driver. */
function checkedFirst(
  check: (ctx: PlantContext, t: TurnTrace, batch: readonly TurnTrace[]) => void,
) {
  return planted((ctx) => ({
    storeTurnTraces: (request: RequestOf<"storeTurnTraces">) => {
      for (const t of request.traces) check(ctx, t, request.traces);
      return ctx.original.storeTurnTraces(request);
    },
  }));
}

/** Trace-write violations an outside adapter had: each passed the suite before it grew. */
export const TRACE_OWNERS = {
  /**
   * A trace's message found in another conversation is refused with a plain `IntegrityError`
   * naming where it is (not an owner refusal): a view learns that the message exists.
   */
  foreignMessageNamed: () =>
    checkedFirst(({ state }, t) => {
      const found = state.messages.get(t.messageId)?.message;
      if (found && found.conversationId !== t.conversationId) {
        throw new IntegrityError(
          `message ${t.messageId} belongs to conversation ${found.conversationId}`,
        );
      }
    }),

  /** "One trace per message" checked before the trace id's owner. */
  oneTracePerMessageFirst: () =>
    checkedFirst(({ state }, t, batch) => {
      const other =
        batch.find((x) => x.messageId === t.messageId && x.id !== t.id)?.id ??
        state.traceIdByMessage.get(t.messageId);
      if (other !== undefined && other !== t.id) {
        throw new IntegrityError(`message ${t.messageId} already has trace ${other}`);
      }
    }),
};
