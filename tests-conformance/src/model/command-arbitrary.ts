import fc from "fast-check";
import type { StoreCommand } from "./command.js";
import {
  ConversationsOfUser,
  GetContext,
  GetConversation,
  GetMessage,
  ListMessages,
  Reopen,
} from "./read-commands.js";
import {
  DeleteConversation,
  DeleteMessage,
  DeleteUserData,
  FlagMessage,
  StoreConversation,
  StoreMessage,
  StoreMessages,
} from "./write-commands.js";

const weighted = <T>(...choices: [number, T][]) =>
  fc.oneof(...choices.map(([weight, value]) => ({ weight, arbitrary: fc.constant(value) })));

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
// Two timestamps most of the time: same-timestamp messages, ordered by receipt, are the rule.
const timestamp = weighted([3, 10], [2, 20], [1, 30]);
// Mostly live: flagged messages leave the context window, where ties are hardest to get right.
const isFlagged = weighted([3, false], [1, true]);
// Half the walks read everything in one page, half walk pages of one or two.
const limit = fc.option(fc.constantFrom(1, 2), { nil: undefined, freq: 2 });
const contextSize = fc.oneof(
  { weight: 1, arbitrary: fc.constant(0) },
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 4 }) },
);
const specIn = (c: string) =>
  fc.record({
    id: fc.oneof(
      { weight: 9, arbitrary: slot.map((i) => `${c}.m${i}`) },
      { weight: 1, arbitrary: fc.constant("mx") },
    ),
    timestamp,
    isFlagged,
  });
// A tie: live messages of one conversation with one timestamp, stored against id order (m3
// before m1), so only the receipt order reads them back right.
const tieIn = (c: string) =>
  fc
    .tuple(fc.subarray([3, 2, 1], { minLength: 2 }), timestamp)
    .map(([slots, t]) => slots.map((i) => ({ id: `${c}.m${i}`, timestamp: t, isFlagged: false })));

/**
 * The command generator: every write and read of the contract the model covers, weighted so
 * that state builds up (writes often, destructive calls rarely), same-timestamp messages are
 * common, and flags and upserts (which move timestamps and flags) interleave with the reads.
 */
export function commandArbitrary(persistent: boolean): fc.Arbitrary<StoreCommand> {
  const commands: fc.WeightedArbitrary<StoreCommand>[] = [
    {
      weight: 8,
      arbitrary: fc
        .tuple(convId, fc.constantFrom(5, 15, 25, 35))
        .map(([c, u]) => new StoreConversation(c, u)),
    },
    {
      weight: 4,
      arbitrary: convId.chain((c) => specIn(c).map((m) => new StoreMessage(c, m))),
    },
    {
      weight: 3,
      arbitrary: convId.chain((c) =>
        fc.array(specIn(c), { minLength: 1, maxLength: 3 }).map((ms) => new StoreMessages(c, ms)),
      ),
    },
    { weight: 6, arbitrary: convId.chain((c) => tieIn(c).map((ms) => new StoreMessages(c, ms))) },
    { weight: 3, arbitrary: fc.tuple(msgId, fc.boolean()).map(([m, f]) => new FlagMessage(m, f)) },
    { weight: 1, arbitrary: msgId.map((m) => new DeleteMessage(m)) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        convId.map((c): StoreCommand => new DeleteConversation(c)),
        userId.map((u): StoreCommand => new DeleteUserData(u)),
      ),
    },
    { weight: 4, arbitrary: fc.tuple(convId, limit).map(([c, l]) => new ListMessages(c, l)) },
    {
      weight: 6,
      arbitrary: fc
        .tuple(convId, contextSize, viewUser)
        .map(([c, n, v]) => new GetContext(c, n, v)),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(userId, limit).map(([u, l]) => new ConversationsOfUser(u, l)),
    },
    { weight: 1, arbitrary: fc.tuple(msgId, viewUser).map(([m, v]) => new GetMessage(m, v)) },
    { weight: 1, arbitrary: fc.tuple(convId, viewUser).map(([c, v]) => new GetConversation(c, v)) },
  ];
  if (persistent) commands.push({ weight: 1, arbitrary: fc.constant(new Reopen()) });
  return fc.oneof(...commands);
}

/** The longest sequence the model-based test generates by default. */
export const DEFAULT_MAX_COMMANDS = 40;

/** Random command sequences of up to `maxCommands` operations, as the model-based test runs them. */
export function commandSequences(persistent: boolean, maxCommands = DEFAULT_MAX_COMMANDS) {
  return fc.commands([commandArbitrary(persistent)], { maxCommands, size: "+1" });
}
