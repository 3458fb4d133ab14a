import type { StoreCapabilities } from "@message-store/core";
import fc from "fast-check";
import { ApiCommand, type Call, Reopen, type StoreCommand } from "./command.js";
import { BASE, type MessageSpec, OWNER, TENANT, Vocabulary } from "./commands.js";

const weighted = <T>(...choices: [number, T][]) =>
  fc.oneof(...choices.map(([weight, value]) => ({ weight, arbitrary: fc.constant(value) })));
const one = (...calls: Call[]) => new ApiCommand(calls);

// c1 more often than the others, so writes and reads meet in one conversation.
const convId = weighted([2, "c1"], [1, "c2"], [1, "c3"]);
const userId = fc.constantFrom("u1", "u2");
const viewUser = fc.option(userId, { nil: null, freq: 2 });
const slot = fc.constantFrom(1, 2, 3);
// Message ids are mostly their conversation's own ("c1.m2"); "mx" is shared, so that an upsert
// sometimes tries to move a message to another conversation.
const msgId = fc.oneof(
  { weight: 9, arbitrary: fc.tuple(convId, slot).map(([c, i]) => `${c}.m${i}`) },
  { weight: 1, arbitrary: fc.constant("mx") },
);
// Traces go mostly on c1's messages, the busiest conversation.
const traced = fc.oneof(
  { weight: 3, arbitrary: slot.map((i) => `c1.m${i}`) },
  { weight: 1, arbitrary: msgId },
);
// Two timestamps most of the time: same-timestamp messages, ordered by receipt, are the rule.
const timestamp = weighted([3, 10], [2, 20], [1, 30]);
// Mostly live: flagged messages leave the context window, where ties are hardest to get right.
const isFlagged = weighted([3, false], [1, true]);
// Half the walks read everything in one page, half walk pages of one or two.
const walk = fc.option(fc.constantFrom(1, 2), { nil: undefined, freq: 2 });
const includeDeleted = weighted([3, false], [1, true]);
const contextSize = fc.oneof(
  { weight: 1, arbitrary: fc.constant(0) },
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 4 }) },
);
const specIn = (c: string): fc.Arbitrary<MessageSpec> =>
  fc.record({
    id: fc.oneof(
      { weight: 19, arbitrary: slot.map((i) => `${c}.m${i}`) },
      { weight: 1, arbitrary: fc.constant("mx") },
    ),
    timestamp,
    isFlagged,
    content: fc.constantFrom(0, 1, 2),
    embedding: fc.constantFrom(0, 1, 2, 3),
    foreign: weighted([19, false], [1, true]),
  });
// A tie: live messages of one conversation with one timestamp, stored against id order (m3
// before m1), so only the receipt order reads them back right.
const tieIn = (c: string): fc.Arbitrary<MessageSpec[]> =>
  fc.tuple(fc.subarray([3, 2, 1], { minLength: 2 }), timestamp).map(([slots, t]) =>
    slots.map((i) => ({
      id: `${c}.m${i}`,
      timestamp: t,
      isFlagged: false,
      content: 0,
      embedding: 3,
    })),
  );

/**
 * The command generator: writes and reads of the whole contract (what the adapter's
 * capabilities declare), weighted so that state builds up (writes often, destructive calls
 * rarely), same-timestamp messages are common, and flags, upserts, soft deletes and restores
 * interleave with the reads, through views as well as unscoped.
 */
export function commandArbitrary(
  capabilities: StoreCapabilities,
  persistent: boolean,
): fc.Arbitrary<StoreCommand> {
  const v = new Vocabulary(capabilities);
  // Without the guarantee, a batch refused at its second trace may keep the first: one at a time.
  const traceBatch = capabilities.atomicTraceBatches ? 2 : 1;
  const cmd = (weight: number, arbitrary: fc.Arbitrary<StoreCommand>) => ({ weight, arbitrary });
  const store = (c: string, specs: MessageSpec[]): Call => ({
    method: "storeMessages",
    args: [specs.map((m) => v.message(c, m))],
  });
  // Half the message writes upsert their conversation first, so that most of them land.
  const ensured = (c: string, write: Call) =>
    fc
      .boolean()
      .map((ensure) =>
        ensure
          ? one({ method: "storeConversation", args: [v.conversation(c, 5)] }, write)
          : one(write),
      );
  const commands: fc.WeightedArbitrary<StoreCommand>[] = [
    cmd(
      8,
      fc
        .tuple(convId, fc.constantFrom(5, 15, 25, 35), weighted([19, false], [1, true]))
        .map(([c, u, f]) => one({ method: "storeConversation", args: [v.conversation(c, u, f)] })),
    ),
    cmd(
      4,
      convId.chain((c) =>
        specIn(c).chain((m) => ensured(c, { method: "storeMessage", args: [v.message(c, m)] })),
      ),
    ),
    cmd(
      3,
      convId.chain((c) =>
        fc
          .uniqueArray(specIn(c), { minLength: 1, maxLength: 3, selector: (m) => m.id })
          .chain((ms) => ensured(c, store(c, ms))),
      ),
    ),
    cmd(
      6,
      convId.chain((c) => tieIn(c).chain((ms) => ensured(c, store(c, ms)))),
    ),
    cmd(
      2,
      fc
        .tuple(
          convId,
          fc.constantFrom(5, 40),
          fc.subarray([1, 2, 3], { minLength: 1 }),
          fc.constantFrom(0, 1, 2),
        )
        .map(([c, u, slots, content]) =>
          one(
            ...v.session(
              c,
              u,
              slots.map((i) => ({ id: `${c}.m${i}`, content })),
            ),
          ),
        ),
    ),
    cmd(
      3,
      fc
        .tuple(msgId, fc.boolean(), viewUser)
        .map(([m, f, u]) => one({ method: "flagMessage", args: [m, f], viewUser: u })),
    ),
    cmd(
      1,
      fc
        .tuple(msgId, viewUser)
        .map(([m, u]) => one({ method: "deleteMessage", args: [m], viewUser: u })),
    ),
    cmd(
      1,
      fc.oneof(
        convId.map((c) => one({ method: "deleteConversation", args: [c] })),
        userId.map((u) => one({ method: "deleteUserData", args: [u] })),
      ),
    ),
    cmd(
      5,
      fc
        .tuple(
          fc.uniqueArray(traced, { minLength: 1, maxLength: traceBatch }),
          fc.constantFrom(1, 2),
          fc.constantFrom(5, 25),
        )
        .chain(([ms, agent, tokens]) => {
          const conversationOf = (m: string) => (m === "mx" ? "c1" : m.split(".")[0]!);
          const write: Call = {
            method: "storeTurnTraces",
            args: [ms.map((m) => v.trace(m, conversationOf(m), agent, tokens))],
          };
          // Half of them store their messages first, so that most traces land.
          const messages = (c: string) => ({
            id: c,
            timestamp: tokens,
            isFlagged: false,
            content: 0,
            embedding: 3,
          });
          return fc.boolean().map((first) =>
            first
              ? one(
                  ...ms.flatMap((m): Call[] => [
                    { method: "storeConversation", args: [v.conversation(conversationOf(m), 5)] },
                    {
                      method: "storeMessages",
                      args: [[v.message(conversationOf(m), messages(m))]],
                    },
                  ]),
                  write,
                )
              : one(write),
          );
        }),
    ),
    cmd(
      4,
      fc.tuple(convId, walk, includeDeleted, viewUser).map(([c, w, d, u]) =>
        one({
          method: "getMessagesByConversationId",
          args: [c, { includeDeleted: d }],
          walk: w,
          viewUser: u,
        }),
      ),
    ),
    cmd(
      6,
      fc
        .tuple(convId, contextSize, viewUser)
        .map(([c, n, u]) => one({ method: "getImmediateContext", args: [c, n], viewUser: u })),
    ),
    cmd(
      2,
      fc
        .tuple(userId, walk, includeDeleted)
        .map(([u, w, d]) =>
          one({ method: "getConversationsByUserId", args: [u, { includeDeleted: d }], walk: w }),
        ),
    ),
    cmd(
      1,
      fc
        .tuple(walk, viewUser)
        .map(([w, u]) => one({ method: "listConversations", args: [{}], walk: w, viewUser: u })),
    ),
    cmd(
      1,
      fc
        .tuple(msgId, viewUser, includeDeleted)
        .map(([m, u, d]) =>
          one({ method: "getMessage", args: [m, { includeDeleted: d }], viewUser: u }),
        ),
    ),
    cmd(
      1,
      fc
        .tuple(convId, viewUser, includeDeleted)
        .map(([c, u, d]) =>
          one({ method: "getConversation", args: [c, { includeDeleted: d }], viewUser: u }),
        ),
    ),
    cmd(
      1,
      fc
        .tuple(msgId, viewUser)
        .map(([m, u]) => one({ method: "getTurnTraceByMessageId", args: [m], viewUser: u })),
    ),
    cmd(
      3,
      fc
        .tuple(
          walk,
          viewUser,
          fc.constantFrom({}, { agentId: "a1" }, { toolName: "lookup" }, { hasErrors: true }),
        )
        .map(([w, u, q]) => one({ method: "queryTurnTraces", args: [q], walk: w, viewUser: u })),
    ),
    cmd(
      2,
      viewUser.map((u) =>
        one({
          method: "summarizeUsage",
          args: [{ since: 0, until: BASE * 2, bucket: "day" }],
          viewUser: u,
        }),
      ),
    ),
  ];
  if (capabilities.softDelete) {
    const target = fc.oneof(
      convId.map((c) => ["Conversation", c] as const),
      msgId.map((m) => ["Message", m] as const),
    );
    commands.push(
      cmd(
        2,
        fc.tuple(target, fc.boolean(), viewUser).map(([[kind, id], restore, u]) =>
          one({
            method: `${restore ? "restore" : "softDelete"}${kind}` as Call["method"],
            args: [id],
            viewUser: u,
          }),
        ),
      ),
      cmd(
        1,
        fc
          .constantFrom(0, BASE)
          .map((before) => one({ method: "purgeDeleted", args: [{ before }] })),
      ),
    );
  }
  if (capabilities.tenants) {
    commands.push(
      cmd(
        2,
        fc
          .tuple(fc.constantFrom("t1", "t2"), convId, walk)
          .map(([t, c, w]) =>
            one(
              { method: "getImmediateContext", args: [c, 3], viewTenant: t },
              { method: "listConversations", args: [{}], viewTenant: t, walk: w },
            ),
          ),
      ),
    );
  }
  if (capabilities.semanticSearch) {
    commands.push(
      cmd(
        1,
        fc
          .tuple(
            fc.constantFrom([1, 0], [0, 1], [1, 2]),
            viewUser,
            fc.option(convId, { nil: undefined }),
          )
          .map(([embedding, u, c]) =>
            one({
              method: "searchMessages",
              args: [{ embedding, limit: 3, ...(c === undefined ? {} : { conversationId: c }) }],
              viewUser: u,
            }),
          ),
      ),
    );
  }
  if (capabilities.textSearch) {
    commands.push(
      cmd(
        1,
        fc
          .tuple(fc.constantFrom("alpha", "BETA", "mm"), walk, viewUser, includeDeleted)
          .map(([text, w, u, d]) =>
            one({
              method: "searchConversations",
              args: [{ text, includeDeleted: d }],
              walk: w,
              viewUser: u,
            }),
          ),
      ),
    );
  }
  if (capabilities.embeddingQueue) {
    commands.push(
      cmd(
        1,
        fc
          .tuple(walk, viewUser)
          .map(([w, u]) =>
            one({ method: "listPendingEmbeddings", args: [{}], walk: w, viewUser: u }),
          ),
      ),
      cmd(
        1,
        fc.tuple(msgId, fc.constantFrom(0, 1, 2), viewUser).map(([m, content, u]) =>
          one({
            method: "setEmbeddings",
            args: [
              [
                {
                  id: m,
                  embedding: [1, 1],
                  originalContent: ["alpha", "Beta alpha", "gamma"][content],
                },
              ],
            ],
            viewUser: u,
          }),
        ),
      ),
    );
  }
  if (persistent) commands.push(cmd(1, fc.constant(new Reopen())));
  return fc.oneof(...commands);
}

/** The longest sequence the model-based test generates by default. */
export const DEFAULT_MAX_COMMANDS = 40;

/** Random command sequences of up to `maxCommands` operations, as the model-based test runs them. */
export function commandSequences(
  capabilities: StoreCapabilities,
  persistent: boolean,
  maxCommands = DEFAULT_MAX_COMMANDS,
) {
  return fc.commands([commandArbitrary(capabilities, persistent)], { maxCommands, size: "+1" });
}

export { OWNER, TENANT };
