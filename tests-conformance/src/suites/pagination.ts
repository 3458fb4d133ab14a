import type { MessageStoreApi, Page, PageOptions } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { collect } from "../dump.js";
import { expectRejection } from "../expect-error.js";
import { conversation, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

type Fetch = (options: PageOptions) => Promise<Page<{ id: string }>>;

interface ListUnderTest {
  name: string;
  /** Seeds 7 rows (with ties) and returns the fetcher plus an inserter of new rows. */
  seed: (
    store: MessageStoreApi,
  ) => Promise<{ fetch: Fetch; insert: (round: number) => Promise<void> }>;
  /** Makes the row `id` change or disappear (deletes its conversation, or flags a message). */
  remove: (store: MessageStoreApi, id: string) => Promise<unknown>;
}

/** 7 conversations of USER (ties on activity) and one of another user; inserts around the ties. */
async function seedConversations(
  store: MessageStoreApi,
  fetch: (o: PageOptions) => Promise<Page<{ id: string }>>,
) {
  for (const [i, ts] of [50, 40, 30, 30, 30, 20, 10].entries()) {
    await store.storeConversation(conversation({ id: `c${i}`, userId: USER, updatedAt: T0 + ts }));
  }
  return {
    fetch,
    insert: async (round: number) => {
      for (const [j, ts] of [55, 30, 30, 35, 5, 25].entries()) {
        const id = j === 1 ? `a-${round}` : `z-${round}-${j}`; // around the tie on both sides
        await store.storeConversation(conversation({ id, userId: USER, updatedAt: T0 + ts }));
      }
    },
  };
}

const USER = "page-user";
const AGENT = "page-agent";

/** The lists under test, each seeded with 7 rows including ties on the sort key. */
const LISTS: ListUnderTest[] = [
  {
    name: "getMessagesByConversationId",
    seed: async (store) => {
      const c = conversation({ id: "page-conv", userId: USER });
      await store.storeConversation(c);
      await store.storeMessages(
        [10, 20, 30, 30, 30, 40, 50].map((ts, i) =>
          message(c, { id: `m${i}`, timestamp: T0 + ts }),
        ),
      );
      return {
        fetch: (o) => store.getMessagesByConversationId(c.id, o),
        insert: async (round) => {
          await store.storeMessages(
            [5, 30, 35, 100, 25].map((ts) =>
              message(c, { id: `new-${round}-${ts}`, timestamp: T0 + ts }),
            ),
          );
        },
      };
    },
    remove: (store, id) => store.flagMessage(id),
  },
  {
    name: "getConversationsByUserId",
    seed: (store) => seedConversations(store, (o) => store.getConversationsByUserId(USER, o)),
    remove: (store, id) => store.deleteConversation(id),
  },
  {
    name: "listConversations",
    seed: (store) => seedConversations(store, (o) => store.listConversations(o)),
    remove: (store, id) => store.deleteConversation(id),
  },
  {
    name: "listConversations({ userId })",
    seed: async (store) => {
      await store.storeConversation(conversation({ id: "c3-other-user", userId: "someone-else" }));
      return seedConversations(store, (o) => store.listConversations({ ...o, userId: USER }));
    },
    remove: (store, id) => store.deleteConversation(id),
  },
  ...(["getTurnTracesByAgentId", "queryTurnTraces"] as const).map(
    (name): ListUnderTest => ({
      name,
      seed: async (store) => {
        const add = async (id: string, ts: number) => {
          const c = conversation({ id: `conv-${id}`, userId: USER });
          await store.storeConversation(c);
          const m = await store.storeMessage(message(c, { id: `msg-${id}`, role: "assistant" }));
          await store.storeTurnTrace(trace(m, { id, agentId: AGENT, timestamp: T0 + ts }));
        };
        for (const [i, ts] of [50, 40, 30, 30, 30, 20, 10].entries()) await add(`t${i}`, ts);
        return {
          fetch: (o) =>
            name === "queryTurnTraces"
              ? store.queryTurnTraces(o)
              : store.getTurnTracesByAgentId(AGENT, o),
          insert: async (round) => {
            for (const [j, ts] of [55, 30, 30, 35, 5, 25].entries()) {
              await add(j === 1 ? `a-${round}` : `z-${round}-${j}`, ts);
            }
          },
        };
      },
      remove: (store, id) => store.deleteConversation(`conv-${id}`),
    }),
  ),
];

const ids = (items: { id: string }[]) => items.map((x) => x.id);

/** Pagination of every list: walks, ends, omitted limits, cursor stability, bad cursors. */
export function paginationSuite(h: Harness): void {
  describe("pagination", () => {
    for (const list of LISTS) {
      describe(list.name, () => {
        it("walks with any limit give the same sequence as one unpaged read", async () => {
          const { fetch } = await list.seed(h.store);
          const whole = await fetch({});
          expect(whole.nextCursor).toBeNull();
          expect(whole.items).toHaveLength(7);
          for (const limit of [1, 2, 3, 4, 6, 7, 8, 1000]) {
            expect(await collect(fetch, limit), `limit ${limit}`).toEqual(whole.items);
          }
        });

        it("nextCursor is null on the last page, also when that page is exactly full", async () => {
          const { fetch } = await list.seed(h.store);
          expect((await fetch({ limit: 7 })).nextCursor).toBeNull();
          expect((await fetch({ limit: 8 })).nextCursor).toBeNull();
          const first = await fetch({ limit: 6 });
          expect(first.items).toHaveLength(6);
          expect(first.nextCursor).not.toBeNull();
          const last = await fetch({ limit: 1, cursor: first.nextCursor });
          expect(last.items).toHaveLength(1);
          expect(last.nextCursor).toBeNull();
        });

        it("limit omitted after a cursor returns everything that is left", async () => {
          const { fetch } = await list.seed(h.store);
          const whole = (await fetch({})).items;
          const first = await fetch({ limit: 2 });
          const rest = await fetch({ cursor: first.nextCursor });
          expect(rest.nextCursor).toBeNull();
          expect([...first.items, ...rest.items]).toEqual(whole);
          expect((await fetch({ cursor: null })).items).toEqual(whole);
        });

        it("rows stored after the first page never make a later page repeat or skip a row", async () => {
          const { fetch, insert } = await list.seed(h.store);
          const before = ids((await fetch({})).items);
          const seen: string[] = [];
          let page = await fetch({ limit: 3 });
          seen.push(...ids(page.items));
          for (let round = 0; page.nextCursor !== null; round++) {
            expect(round, "walk did not end").toBeLessThan(100);
            await insert(round);
            page = await fetch({ limit: 2, cursor: page.nextCursor });
            seen.push(...ids(page.items));
          }
          expect(new Set(seen).size, `repeated rows in ${JSON.stringify(seen)}`).toBe(seen.length);
          expect(seen.filter((id) => before.includes(id))).toEqual(before);
        });

        it("a cursor keeps working after the row it was issued at is flagged or deleted", async () => {
          const { fetch } = await list.seed(h.store);
          const whole = (await fetch({})).items;
          const first = await fetch({ limit: 3 });
          await list.remove(h.store, first.items[2]!.id);
          const rest = await collect(
            (o) => fetch({ ...o, cursor: o.cursor ?? first.nextCursor }),
            2,
          );
          expect(ids(rest)).toEqual(ids(whole.slice(3)));
        });

        it("a garbage or foreign cursor is a ValidationError", async () => {
          const { fetch } = await list.seed(h.store);
          const foreign = await foreignCursor(h.store, list.name);
          const bad = [
            "garbage",
            "!!!!",
            "eyJ4IjoxfQ",
            Buffer.from(JSON.stringify(["x", 1, 2])).toString("base64url"),
            Buffer.from(JSON.stringify(["m", "1", "2"])).toString("base64url"),
            Buffer.from(JSON.stringify(["c", 1.5, "id"])).toString("base64url"),
            "x".repeat(5000),
            foreign,
          ];
          for (const cursor of bad) {
            await expectRejection(
              () => fetch({ limit: 2, cursor }),
              "VALIDATION",
              `cursor ${cursor.slice(0, 40)}`,
            );
          }
          await expectRejection(
            () => fetch({ limit: 2, cursor: "" }),
            "VALIDATION",
            "empty cursor",
          );
        });
      });
    }

    it("an empty list gives an empty page with a null cursor, with or without limit", async () => {
      for (const limit of [undefined, 1, 5]) {
        const o = limit === undefined ? {} : { limit };
        expect(await h.store.getMessagesByConversationId("none", o)).toEqual({
          items: [],
          nextCursor: null,
        });
        expect(await h.store.getConversationsByUserId("none", o)).toEqual({
          items: [],
          nextCursor: null,
        });
        expect(await h.store.getTurnTracesByAgentId("none", o)).toEqual({
          items: [],
          nextCursor: null,
        });
        expect(await h.store.queryTurnTraces(o)).toEqual({ items: [], nextCursor: null });
        expect(await h.store.listConversations(o)).toEqual({ items: [], nextCursor: null });
        expect(await h.store.listConversations({ ...o, userId: "none" })).toEqual({
          items: [],
          nextCursor: null,
        });
      }
    });
  });
}

/** A valid cursor issued by a different list than `name`. */
async function foreignCursor(store: MessageStoreApi, name: string): Promise<string> {
  if (name === "getMessagesByConversationId") {
    for (const id of ["foreign-1", "foreign-2"]) {
      await store.storeConversation(conversation({ id, userId: "foreign-user" }));
    }
    return (
      (await store.getConversationsByUserId("foreign-user", { limit: 1 })).nextCursor ?? fail(name)
    );
  }
  const c = conversation({ id: "foreign-conv" });
  await store.storeConversation(c);
  await store.storeMessages([message(c), message(c)]);
  return (await store.getMessagesByConversationId(c.id, { limit: 1 })).nextCursor ?? fail(name);
}

function fail(name: string): never {
  throw new Error(`conformance: could not obtain a foreign cursor for ${name}`);
}
