import { describe, expect, it, type TestContext } from "vitest";
import { requireCapabilities } from "../capabilities.js";
import { checkpoint, listed, OWNER, shape, text, value } from "../checkpoint-fixtures.js";
import { allMessages } from "../dump.js";
import { expectAllRejections, expectRejection } from "../expect-error.js";
import type { Harness } from "../harness.js";
import { checkpointLifecycleCases } from "./checkpoint-lifecycle.js";

/**
 * Checkpoints (`capabilities.checkpoints`): put and read back, channel values by version,
 * namespaces, pending writes, listing; then (`checkpoint-lifecycle.ts`) atomicity, deletion,
 * soft delete, erasure and scope.
 */
export function checkpointsSuite(h: Harness): void {
  describe("checkpoints", () => {
    const need = (ctx: TestContext) => requireCapabilities(h, ctx, "checkpoints");

    it("rejects every checkpoint method with UnsupportedOperationError when the capability is absent", async (ctx) => {
      if (h.store.capabilities.checkpoints === true) ctx.skip(`${h.name} supports checkpoints`);
      const view = h.store.forUser("u1");
      await expectAllRejections(
        [
          ["putCheckpoint", () => h.store.putCheckpoint(checkpoint("t", "c1"), OWNER)],
          [
            "putCheckpointWrites",
            () =>
              h.store.putCheckpointWrites(
                {
                  conversationId: "t",
                  checkpointId: "c1",
                  taskId: "task",
                  writes: [{ channel: "a", idx: 0, value: value("1") }],
                },
                OWNER,
              ),
          ],
          ["getCheckpoint", () => h.store.getCheckpoint("t")],
          ["listCheckpoints", () => h.store.listCheckpoints()],
          ["deleteCheckpoints", () => h.store.deleteCheckpoints("t")],
          ["view.getCheckpoint", () => view.getCheckpoint("t")],
          ["view.listCheckpoints", () => view.listCheckpoints()],
        ],
        "UNSUPPORTED",
      );
    });

    it("a put creates the thread's conversation and reads back exactly, defaults filled", async (ctx) => {
      need(ctx);
      const before = Date.now();
      await h.store.putCheckpoint(
        checkpoint("cp-t", "c1", {
          channelVersions: { messages: "1", step: "1" },
          values: [
            { channel: "step", version: "1", value: value("7") },
            { channel: "messages", version: "1", value: value("AAEC", "bytes") },
          ],
          metadata: { source: "input", step: -1, parents: {}, nested: { list: [1, "x", null] } },
        }),
        { ...OWNER, title: "Thread one" },
      );
      expect(await h.store.getConversation("cp-t")).toMatchObject({
        id: "cp-t",
        userId: OWNER.userId,
        agentId: OWNER.agentId,
        title: "Thread one",
        deletedAt: null,
      });
      expect((await h.store.getConversation("cp-t"))!.createdAt).toBeGreaterThanOrEqual(before);
      const expected = {
        thread: "cp-t",
        namespace: "",
        id: "c1",
        parentId: null,
        doc: "json:doc:c1",
        versions: { messages: "1", step: "1" },
        metadata: { source: "input", step: -1, parents: {}, nested: { list: [1, "x", null] } },
        values: [
          ["messages", "1", "bytes:AAEC"],
          ["step", "1", "json:7"],
        ],
        writes: [],
      };
      expect(shape(await h.store.getCheckpoint("cp-t"))).toEqual(expected);
      expect(shape(await h.store.getCheckpoint("cp-t", { id: "c1" }))).toEqual(expected);
      const read = await h.store.getCheckpoint("cp-t", { namespace: "" });
      expect(read!.checkpoint.data).toBeInstanceOf(Uint8Array);
      expect(await h.store.getCheckpoint("cp-t", { id: "c2" })).toBeNull();
      expect(await h.store.getCheckpoint("cp-unknown")).toBeNull();
      expect(await h.store.getCheckpoint("cp-t", { namespace: "child" })).toBeNull();
    });

    it("channel values are read by version: unchanged channels come from earlier checkpoints, a stored version is kept", async (ctx) => {
      need(ctx);
      const put = (id: string, versions: Record<string, string>, values: [string, string][]) =>
        h.store.putCheckpoint(
          checkpoint("cp-v", id, {
            parentId: id === "c1" ? null : `c${Number(id[1]) - 1}`,
            channelVersions: versions,
            values: values.map(([channel, v]) => ({
              channel,
              version: v,
              value: value(`${channel}@${v} by ${id}`),
            })),
          }),
          OWNER,
        );
      await put("c1", { a: "1", b: "1" }, [
        ["a", "1"],
        ["b", "1"],
      ]);
      await put("c2", { a: "1", b: "2", c: "1" }, [["b", "2"]]);
      await put("c3", { a: "1", b: "2" }, [["a", "1"]]);
      const values = async (id: string) =>
        shape(await h.store.getCheckpoint("cp-v", { id }))!.values;
      expect(await values("c1")).toEqual([
        ["a", "1", "json:a@1 by c1"],
        ["b", "1", "json:b@1 by c1"],
      ]);
      // c has no value at version 1: it is left out.
      expect(await values("c2")).toEqual([
        ["a", "1", "json:a@1 by c1"],
        ["b", "2", "json:b@2 by c2"],
      ]);
      expect(await values("c3")).toEqual(await values("c2"));
      expect((await h.store.getCheckpoint("cp-v"))!.parentId).toBe("c2");
    });

    it("the latest checkpoint is the greatest id in code points, not the last written; a put of the same id replaces it", async (ctx) => {
      need(ctx);
      for (const id of ["b", "a", "\u{1F600}", "\uFFFF", "c"])
        await h.store.putCheckpoint(checkpoint("cp-o", id), OWNER);
      expect((await h.store.getCheckpoint("cp-o"))!.id).toBe("\u{1F600}");
      await h.store.putCheckpoint(
        checkpoint("cp-o", "a", { parentId: "z", metadata: { replaced: true } }),
        OWNER,
      );
      const a = await h.store.getCheckpoint("cp-o", { id: "a" });
      expect([a!.parentId, a!.metadata]).toEqual(["z", { replaced: true }]);
      expect(await listed(h.store, { conversationId: "cp-o" })).toEqual(
        ["\u{1F600}", "\uFFFF", "c", "b", "a"].map((id) => ["cp-o", "", id]),
      );
    });

    it("namespaces are separate: own checkpoints, own latest, own channel values", async (ctx) => {
      need(ctx);
      const at = (namespace: string, id: string, v: string) =>
        checkpoint("cp-n", id, {
          namespace,
          channelVersions: { x: "1" },
          values: v ? [{ channel: "x", version: "1", value: value(v) }] : [],
        });
      await h.store.putCheckpoint(at("", "c1", "root"), OWNER);
      await h.store.putCheckpoint(at("child:1", "c1", "child"), OWNER);
      await h.store.putCheckpoint(at("", "c2", ""), OWNER);
      await h.store.putCheckpoint(at("other", "c0", ""), OWNER);
      expect((await h.store.getCheckpoint("cp-n"))!.id).toBe("c2");
      expect(shape(await h.store.getCheckpoint("cp-n"))!.values).toEqual([["x", "1", "json:root"]]);
      const child = await h.store.getCheckpoint("cp-n", { namespace: "child:1" });
      expect(shape(child)!.values).toEqual([["x", "1", "json:child"]]);
      expect(shape(await h.store.getCheckpoint("cp-n", { namespace: "other" }))!.values).toEqual(
        [],
      );
      expect(await listed(h.store, { conversationId: "cp-n", namespace: "" })).toEqual([
        ["cp-n", "", "c2"],
        ["cp-n", "", "c1"],
      ]);
      expect(await listed(h.store, { conversationId: "cp-n" })).toEqual([
        ["cp-n", "", "c2"],
        ["cp-n", "child:1", "c1"],
        ["cp-n", "", "c1"],
        ["cp-n", "other", "c0"],
      ]);
    });

    it("pending writes: stored before their checkpoint too, read in (taskPath, taskId, idx) order, idx ≥ 0 kept, idx < 0 replaced", async (ctx) => {
      need(ctx);
      const writes = (
        taskId: string,
        taskPath: string,
        list: [string, number, string][],
        checkpointId = "c1",
        namespace = "",
      ) =>
        h.store.putCheckpointWrites(
          {
            conversationId: "cp-w",
            namespace,
            checkpointId,
            taskId,
            taskPath,
            writes: list.map(([channel, idx, v]) => ({ channel, idx, value: value(v) })),
          },
          OWNER,
        );
      await writes("task-b", "", [["x", 0, "b0"]]);
      // The conversation is created by the first write, before any checkpoint.
      expect((await h.store.getConversation("cp-w"))!.userId).toBe(OWNER.userId);
      await h.store.putCheckpoint(checkpoint("cp-w", "c1"), OWNER);
      await writes("task-a", "~1", [
        ["y", 1, "a1"],
        ["x", 0, "a0"],
        ["__error__", -2, "err-1"],
      ]);
      await writes("task-a", "~1", [
        ["x", 0, "a0 again"],
        ["__error__", -2, "err-2"],
      ]);
      await writes("task-c", "", [
        ["x", 10, "c10"],
        ["x", 9, "c9"],
      ]);
      await writes("task-a", "~1", [["x", 0, "other checkpoint"]], "c2");
      await writes("task-a", "~1", [["x", 0, "other namespace"]], "c1", "child");
      expect(shape(await h.store.getCheckpoint("cp-w"))!.writes).toEqual([
        ["", "task-b", 0, "x", "json:b0"],
        ["", "task-c", 9, "x", "json:c9"],
        ["", "task-c", 10, "x", "json:c10"],
        ["~1", "task-a", -2, "__error__", "json:err-2"],
        ["~1", "task-a", 0, "x", "json:a0"],
        ["~1", "task-a", 1, "y", "json:a1"],
      ]);
    });

    it("listCheckpoints: newest first across threads, every filter applies, pages walk every row once", async (ctx) => {
      need(ctx);
      const meta = [
        { source: "input", step: -1, tags: ["a", { b: 1 }] },
        { source: "loop", step: 0 },
        { source: "loop", step: 1, extra: null },
      ];
      for (const [t, user] of [
        ["cp-l1", "lu-1"],
        ["cp-l2", "lu-2"],
      ] as const) {
        for (const [i, m] of meta.entries()) {
          await h.store.putCheckpoint(checkpoint(t, `${t}-c${i}`, { metadata: m }), {
            userId: user,
          });
        }
        await h.store.putCheckpoint(
          checkpoint(t, `${t}-s0`, { namespace: "sub", metadata: { source: "fork" } }),
          { userId: user },
        );
      }
      const all = [
        ["cp-l2", "", "cp-l2-c2"],
        ["cp-l2", "", "cp-l2-c1"],
        ["cp-l2", "", "cp-l2-c0"],
        ["cp-l1", "sub", "cp-l1-s0"],
        ["cp-l1", "", "cp-l1-c2"],
        ["cp-l1", "", "cp-l1-c1"],
        ["cp-l1", "", "cp-l1-c0"],
      ];
      expect(await listed(h.store)).toEqual([["cp-l2", "sub", "cp-l2-s0"], ...all]);
      for (const limit of [1, 2, 3, 100])
        expect(await listed(h.store, {}, limit)).toEqual(await listed(h.store));
      expect(await listed(h.store, { userId: "lu-1" })).toEqual(all.slice(3));
      expect(await listed(h.store, { conversationId: "cp-l1", namespace: "" })).toEqual(
        all.slice(4),
      );
      expect(await listed(h.store, { conversationId: "cp-l1", before: "cp-l1-c2" })).toEqual(
        all.slice(5),
      );
      expect(await listed(h.store, { metadata: { source: "loop" } }, 1)).toEqual([
        all[0],
        all[1],
        all[4],
        all[5],
      ]);
      expect(await listed(h.store, { metadata: { source: "loop", extra: null } })).toEqual([
        all[0],
        all[4],
      ]);
      expect(await listed(h.store, { metadata: { tags: ["a", { b: 1 }] } })).toEqual([
        all[2],
        all[6],
      ]);
      expect(await listed(h.store, { metadata: { tags: ["a"] } })).toEqual([]);
      expect(await listed(h.store, { metadata: { nope: null } })).toEqual([]);
      expect(await listed(h.store, { metadata: {} })).toHaveLength(8);
      expect(await listed(h.store, { conversationId: "cp-unknown" })).toEqual([]);
      const [first] = (await h.store.listCheckpoints({ conversationId: "cp-l1", limit: 1 })).items;
      expect(first).toEqual(await h.store.getCheckpoint("cp-l1", { namespace: "sub" }));
    });

    it("a put stores its messages as a session does and its traces with them", async (ctx) => {
      need(ctx);
      const before = Date.now();
      const turns = [
        { id: "cp-m1", role: "user" as const, content: "hi" },
        { id: "cp-m2", role: "assistant" as const, content: "hello" },
      ];
      const traces = [
        {
          id: "cp-tr",
          messageId: "cp-m2",
          conversationId: "cp-s",
          agentId: "cp-agent",
          timestamp: before,
          totalTokens: 12,
          totalLatencyMs: 5,
        },
      ];
      await h.store.putCheckpoint(checkpoint("cp-s", "c1"), { ...OWNER, messages: turns, traces });
      const transcript = await allMessages(h.store, "cp-s");
      expect(transcript.map((m) => [m.id, m.role, m.originalContent, m.userId])).toEqual([
        ["cp-m1", "user", "hi", OWNER.userId],
        ["cp-m2", "assistant", "hello", OWNER.userId],
      ]);
      expect(transcript[0]!.timestamp).toBeGreaterThanOrEqual(before);
      expect(transcript[1]!.timestamp).toBe(transcript[0]!.timestamp + 1);
      expect(await h.store.getTurnTraceByMessageId("cp-m2")).toMatchObject({
        id: "cp-tr",
        userId: OWNER.userId,
        totalTokens: 12,
      });
      // The next step repeats a stored message: it keeps its place; the new one goes after.
      await h.store.putCheckpoint(checkpoint("cp-s", "c2"), {
        ...OWNER,
        messages: [turns[1]!, { id: "cp-m3", role: "user", content: "more" }],
      });
      const next = await allMessages(h.store, "cp-s");
      expect(next.slice(0, 2)).toEqual(transcript);
      expect(next[2]!.timestamp).toBeGreaterThan(transcript[1]!.timestamp);
    });

    it("rejects invalid input with ValidationError before any I/O", async (ctx) => {
      need(ctx);
      const cases: [string, () => Promise<unknown>][] = [
        [
          "no bytes",
          () =>
            h.store.putCheckpoint(
              checkpoint("cp-x", "c", { checkpoint: { type: "json", data: "x" as never } }),
              OWNER,
            ),
        ],
        [
          "a channel version twice",
          () =>
            h.store.putCheckpoint(
              checkpoint("cp-x", "c", {
                values: [
                  { channel: "a", version: "1", value: value("1") },
                  { channel: "a", version: "1", value: value("2") },
                ],
              }),
              OWNER,
            ),
        ],
        ["empty id", () => h.store.putCheckpoint(checkpoint("cp-x", ""), OWNER)],
        ["no owner", () => h.store.putCheckpoint(checkpoint("cp-x", "c"), {} as never)],
        [
          "an idx twice",
          () =>
            h.store.putCheckpointWrites(
              {
                conversationId: "cp-x",
                checkpointId: "c",
                taskId: "t",
                writes: [
                  { channel: "a", idx: 0, value: value("1") },
                  { channel: "b", idx: 0, value: value("2") },
                ],
              },
              OWNER,
            ),
        ],
        ["a bad cursor", () => h.store.listCheckpoints({ cursor: "nope" })],
        ["an unknown option", () => h.store.getCheckpoint("cp-x", { ns: "" } as never)],
      ];
      for (const [what, call] of cases) await expectRejection(call, "VALIDATION", what);
      expect(await h.store.getConversation("cp-x")).toBeNull();
    });

    it("read values are the store's copies: changing them changes nothing stored", async (ctx) => {
      need(ctx);
      const input = checkpoint("cp-c", "c1", {
        channelVersions: { a: "1" },
        values: [{ channel: "a", version: "1", value: value("abc") }],
      });
      await h.store.putCheckpoint(input, OWNER);
      input.checkpoint.data[0] = 0;
      const read = await h.store.getCheckpoint("cp-c");
      read!.values[0]!.value.data[0] = 0;
      read!.metadata.source = "changed";
      const again = await h.store.getCheckpoint("cp-c");
      expect(text(again!.checkpoint)).toBe("json:doc:c1");
      expect(text(again!.values[0]!.value)).toBe("json:abc");
      expect(again!.metadata.source).toBe("loop");
    });

    checkpointLifecycleCases(h, need);
  });
}
