import fc from "fast-check";
import type { RealStore, StoreCommand } from "./command.js";
import {
  ConversationsOfUser,
  GetContext,
  GetConversation,
  GetMessage,
  ListMessages,
  Reopen,
} from "./read-commands.js";
import { ReferenceModel } from "./reference-model.js";
import {
  DeleteConversation,
  DeleteMessage,
  DeleteUserData,
  FlagMessage,
  StoreConversation,
  StoreMessage,
  StoreMessages,
} from "./write-commands.js";

/** Budget and seed of one model-based check. */
export interface ModelCheckOptions {
  /** Random sequences to run. */
  numRuns: number;
  /** fast-check seed; random when omitted. */
  seed?: number;
  /** Longest sequence generated. Default 40. */
  maxCommands?: number;
}

const convId = fc.constantFrom("c1", "c2", "c3");
const userId = fc.constantFrom("u1", "u2");
const viewUser = fc.option(userId, { nil: null, freq: 2 });
// Message ids are mostly their conversation's own ("c1.m2"); "mx" is shared, so that an upsert
// sometimes tries to move a message to another conversation.
const msgId = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.tuple(convId, fc.constantFrom(1, 2, 3)).map(([c, i]) => `${c}.m${i}`),
  },
  { weight: 1, arbitrary: fc.constant("mx") },
);
// Few distinct timestamps, so ties (ordered by receipt) are common.
const timestamp = fc.constantFrom(10, 20, 30);
const limit = fc.option(fc.constantFrom(1, 2), { nil: undefined });
const specIn = (c: string) =>
  fc.record({
    id: fc.oneof(
      { weight: 9, arbitrary: fc.constantFrom(1, 2, 3).map((i) => `${c}.m${i}`) },
      { weight: 1, arbitrary: fc.constant("mx") },
    ),
    timestamp,
    isFlagged: fc.boolean(),
  });

/**
 * The command generator: every write and read of the contract the model covers, weighted so
 * that state builds up (writes often, destructive calls rarely).
 */
function commandArbitrary(persistent: boolean): fc.Arbitrary<StoreCommand> {
  const weighted: fc.WeightedArbitrary<StoreCommand>[] = [
    {
      weight: 5,
      arbitrary: fc
        .tuple(convId, fc.constantFrom(5, 15, 25, 35))
        .map(([c, u]) => new StoreConversation(c, u)),
    },
    {
      weight: 6,
      arbitrary: convId.chain((c) => specIn(c).map((m) => new StoreMessage(c, m))),
    },
    {
      weight: 3,
      arbitrary: convId.chain((c) =>
        fc.array(specIn(c), { minLength: 1, maxLength: 3 }).map((ms) => new StoreMessages(c, ms)),
      ),
    },
    { weight: 2, arbitrary: fc.tuple(msgId, fc.boolean()).map(([m, f]) => new FlagMessage(m, f)) },
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
      weight: 3,
      arbitrary: fc
        .tuple(convId, fc.integer({ min: 0, max: 3 }), viewUser)
        .map(([c, n, v]) => new GetContext(c, n, v)),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(userId, limit).map(([u, l]) => new ConversationsOfUser(u, l)),
    },
    { weight: 1, arbitrary: fc.tuple(msgId, viewUser).map(([m, v]) => new GetMessage(m, v)) },
    { weight: 1, arbitrary: fc.tuple(convId, viewUser).map(([c, v]) => new GetConversation(c, v)) },
  ];
  if (persistent) weighted.push({ weight: 1, arbitrary: fc.constant(new Reopen()) });
  return fc.oneof(...weighted);
}

/**
 * Runs random operation sequences against a fresh store (from `fresh()`) and the reference
 * model, comparing every result. On a mismatch fast-check shrinks the sequence and throws with
 * the seed, the replay path and the shrunk sequence printed as code (one `await store.…;` per
 * operation), followed by the first difference, naming the rule and the field.
 */
export async function runModelCheck(
  fresh: () => Promise<RealStore>,
  options: ModelCheckOptions,
): Promise<void> {
  const probe = await fresh();
  const persistent = probe.reopen !== null;
  const commands = fc.commands([commandArbitrary(persistent)], {
    maxCommands: options.maxCommands ?? 40,
    size: "+1",
  });
  let first = true;
  const property = fc.asyncProperty(commands, async (cmds) => {
    const real = first ? probe : await fresh();
    first = false;
    const model = new ReferenceModel();
    await fc.asyncModelRun(() => ({ model, real }), cmds);
  });
  const details = await fc.check(property, {
    numRuns: options.numRuns,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  });
  if (!details.failed) return;
  const cause = details.errorInstance;
  if (details.counterexample === null) throw cause;
  const sequence = String(details.counterexample[0])
    .replace(/\s*\/\*replayPath=.*\*\/\s*$/, "")
    .split(";,")
    .map((op) => `  ${op.replace(/;$/, "")};`);
  const reason = cause instanceof Error ? cause.message : String(cause);
  throw new Error(
    [
      `model-based check failed after ${details.numRuns} run(s) (seed ${details.seed}, path "${details.counterexamplePath}"; rerun with MESSAGE_STORE_CONFORMANCE_SEED=${details.seed}), shrunk ${details.numShrinks} time(s)`,
      `Counterexample: ${sequence.length} operation(s) on an empty store, the last one differs:`,
      ...sequence,
      reason,
    ].join("\n"),
    { cause },
  );
}
