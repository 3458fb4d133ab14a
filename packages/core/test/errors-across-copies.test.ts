import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertFreshBuild, DIST_ENTRY } from "./support/run-node.js";

// Two real copies of the built core, each in its own folder (as npm installs a second copy
// nested under an adapter whose range does not match), loaded into this one process.
type Core = typeof import("../src/index.js");
type Adapter = typeof import("../src/adapter.js");
let dir: string;
let a: Core;
let b: Core;
let bAdapter: Adapter;

async function copyOfCore(name: string): Promise<[Core, Adapter]> {
  const root = join(dir, name);
  const require = createRequire(DIST_ENTRY);
  mkdirSync(join(root, "node_modules"), { recursive: true });
  for (const dep of ["zod", "uuid"]) {
    const pkgDir = dirname(realpathSync(require.resolve(`${dep}/package.json`)));
    symlinkSync(pkgDir, join(root, "node_modules", dep), "dir");
  }
  cpSync(dirname(DIST_ENTRY), join(root, "dist"), { recursive: true });
  cpSync(join(dirname(DIST_ENTRY), "..", "package.json"), join(root, "package.json"));
  return [
    await import(pathToFileURL(join(root, "dist", "index.js")).href),
    await import(pathToFileURL(join(root, "dist", "adapter.js")).href),
  ];
}

beforeAll(async () => {
  assertFreshBuild();
  dir = mkdtempSync(join(tmpdir(), "message-store-copies-"));
  [a] = await copyOfCore("a");
  [b, bAdapter] = await copyOfCore("b");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("two copies of core in one process", () => {
  it("are really two copies", () => {
    expect(a.NotFoundError).not.toBe(b.NotFoundError);
  });

  it("answer instanceof for each other's errors, by class", () => {
    const fromB = new b.NotFoundError("x");
    expect(fromB).toBeInstanceOf(a.NotFoundError);
    expect(fromB).toBeInstanceOf(a.MessageStoreError);
    expect(fromB).not.toBeInstanceOf(a.IntegrityError);
    expect(a.isMessageStoreError(fromB)).toBe(true);
    const fromA = new a.ValidationError("y");
    expect(fromA).toBeInstanceOf(b.ValidationError);
    expect(fromA).not.toBeInstanceOf(b.NotFoundError);
    expect(new Error("plain")).not.toBeInstanceOf(a.MessageStoreError);
  });

  it("keep the ordinary check for an application's own subclass", () => {
    class MyNotFound extends a.NotFoundError {}
    expect(new MyNotFound("z")).toBeInstanceOf(MyNotFound);
    expect(new b.NotFoundError("z")).not.toBeInstanceOf(MyNotFound);
  });

  it("share one registry: an adapter registered on one is opened by the other's initialize", async () => {
    class BStore extends (b.MessageStore as unknown as new () => object) {}
    const made: object[] = [];
    bAdapter.registerStorage({
      name: "copies-test",
      open: async () => {
        const store = Object.create(BStore.prototype);
        Object.defineProperty(store, Symbol.for("@message-store/core/MessageStore"), {
          value: true,
        });
        made.push(store);
        return store;
      },
    });
    const store = await a.MessageStore.initialize({ storage: "copies-test" } as never);
    expect(store).toBe(made[0]);
    expect(store).toBeInstanceOf(a.MessageStore);
    expect(store).toBeInstanceOf(b.MessageStore);
  });
});
