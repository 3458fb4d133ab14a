import type { AgentInputItem, Session, SessionHistoryTransactionArgs } from "@openai/agents";
import type { Scenario } from "./differential.js";
import { answer, call, everyItemKind, result, user } from "./items.js";

/** Cast for sessions under comparison: both have the optional capabilities. */
type Full = Session & {
  applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void>;
  applyHistoryMutations(args: { mutations: unknown[] }): Promise<void>;
};

const append = (operationId: string, items: AgentInputItem[]): SessionHistoryTransactionArgs => ({
  operationId,
  transaction: { type: "append_items", items },
});

const replace = (
  operationId: string,
  expectedSuffix: AgentInputItem[],
  replacement: AgentInputItem[],
): SessionHistoryTransactionArgs => ({
  operationId,
  transaction: { type: "replace_suffix", expectedSuffix, replacement },
});

/** Scenarios on the session API alone, by name. */
export const ITEM_SCENARIOS: Record<string, Scenario> = {
  "every item kind: added in one batch, read in every newest-N window, popped to empty": async (
    session,
    seen,
  ) => {
    const items = everyItemKind();
    await session.addItems(items);
    seen.record("all", await session.getItems());
    for (let n = 0; n <= items.length + 1; n++)
      seen.record(`newest ${n}`, await session.getItems(n));
    for (let i = 0; i <= items.length; i++) {
      seen.record(`pop ${i}`, await session.popItem());
      seen.record(`after pop ${i}`, await session.getItems(3));
    }
    seen.record("empty", await session.getItems());
  },

  "batches: windows across stored messages, pops across batches, clear and write again": async (
    session,
    seen,
  ) => {
    await session.addItems([user("one")]);
    await session.addItems([
      { type: "reasoning", content: [{ type: "input_text", text: "think" }] },
      answer("two"),
    ]);
    await session.addItems([call("c1", "t", { a: 1 }), result("c1", "t", "ok")]);
    await session.addItems([{ type: "reasoning", content: [] }]);
    for (const n of [1, 2, 3, 4, 5, 6, 7]) seen.record(`newest ${n}`, await session.getItems(n));
    seen.record("pop", await session.popItem());
    seen.record("pop", await session.popItem());
    seen.record("after pops", await session.getItems());
    await session.addItems([user("three")]);
    seen.record("after add", await session.getItems());
    seen.record("pop", await session.popItem());
    seen.record("pop", await session.popItem());
    seen.record("after pops", await session.getItems());
    await session.clearSession();
    seen.record("cleared", await session.getItems());
    seen.record("cleared newest", await session.getItems(2));
    seen.record("pop on empty", await session.popItem());
    await session.clearSession();
    await session.addItems([user("again")]);
    seen.record("again", await session.getItems());
  },

  "history transactions: append, retry, reuse with another transaction, suffix replace": async (
    session,
    seen,
  ) => {
    const s = session as Full;
    await s.addItems([user("start")]);
    await seen.attempt("append", () => s.applyHistoryTransaction(append("op-1", [user("a")])));
    await s.addItems([user("later")]);
    await seen.attempt("retry", () => s.applyHistoryTransaction(append("op-1", [user("a")])));
    await seen.attempt("reuse", () => s.applyHistoryTransaction(append("op-1", [user("b")])));
    seen.record("items", await s.getItems());
    await seen.attempt("mismatch", () =>
      s.applyHistoryTransaction(replace("op-2", [user("nope")], [answer("x")])),
    );
    await seen.attempt("too long", () =>
      s.applyHistoryTransaction(
        replace("op-2", [user("0"), user("start"), user("a"), user("later")], [answer("x")]),
      ),
    );
    await seen.attempt("replace", () =>
      s.applyHistoryTransaction(
        replace("op-2", [user("a"), user("later")], [call("c", "t", {}), answer("accepted")]),
      ),
    );
    await seen.attempt("replace retry", () =>
      s.applyHistoryTransaction(
        replace("op-2", [user("a"), user("later")], [call("c", "t", {}), answer("accepted")]),
      ),
    );
    seen.record("items", await s.getItems());
    await seen.attempt("replace part of a batch", () =>
      s.applyHistoryTransaction(replace("op-3", [answer("accepted")], [answer("final")])),
    );
    seen.record("items", await s.getItems());
    seen.record("pop", await s.popItem());
    await seen.attempt("popped op retry", () =>
      s.applyHistoryTransaction(replace("op-3", [answer("accepted")], [answer("final")])),
    );
    seen.record("items", await s.getItems());
    await s.clearSession();
    await seen.attempt("after clear", () => s.applyHistoryTransaction(append("op-1", [user("b")])));
    seen.record("items", await s.getItems());
  },

  "history transactions: invalid arguments change nothing": async (session, seen) => {
    const s = session as Full;
    await s.addItems([user("start")]);
    const date = { ...user("d"), providerData: { at: new Date(0) } } as AgentInputItem;
    const cases: [string, unknown][] = [
      ["blank id", { operationId: "  ", transaction: { type: "append_items", items: [] } }],
      ["no transaction", { operationId: "x", transaction: null }],
      ["unknown type", { operationId: "x", transaction: { type: "drop" } }],
      ["extra field", { operationId: "x", transaction: { type: "append_items", items: [], x: 1 } }],
      ["not an item", { operationId: "x", transaction: { type: "append_items", items: [42] } }],
      ["a date", append("x", [date])],
      ["suffix fields", { operationId: "x", transaction: { type: "replace_suffix", items: [] } }],
    ];
    for (const [label, args] of cases) {
      await seen.attempt(label, () =>
        s.applyHistoryTransaction(args as SessionHistoryTransactionArgs),
      );
    }
    seen.record("items", await s.getItems());
  },

  "history mutations: a function call replaced, later duplicates removed": async (
    session,
    seen,
  ) => {
    const s = session as Full;
    await s.addItems([user("start"), call("c1", "lookup", { v: 1 }), result("c1", "lookup", "1")]);
    await s.addItems([
      { type: "reasoning", content: [{ type: "input_text", text: "again" }] },
      call("c1", "lookup", { v: 2 }),
    ]);
    await s.addItems([call("c2", "other", {}), answer("done")]);
    await s.applyHistoryMutations({ mutations: [] });
    await s.applyHistoryMutations({
      mutations: [
        {
          type: "replace_function_call",
          callId: "c1",
          replacement: call("c1", "lookup", { v: 3 }),
        },
        { type: "replace_function_call", callId: "zz", replacement: call("zz", "none", {}) },
        { type: "replace_function_call", callId: "c2", replacement: call("c2", "other", { x: 1 }) },
      ],
    });
    seen.record("items", await s.getItems());
    seen.record("newest 3", await s.getItems(3));
    seen.record("pop", await s.popItem());
    seen.record("items", await s.getItems());
  },
};
