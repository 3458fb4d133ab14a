import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built package entry; child processes import it as a consumer would. */
export const DIST_ENTRY = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** Throws unless `dist` exists and is newer than every source file (run `pnpm build` first). */
export function assertFreshBuild(): void {
  if (!existsSync(DIST_ENTRY)) throw new Error(`${DIST_ENTRY} is missing: run \`pnpm build\``);
  const built = statSync(DIST_ENTRY).mtimeMs;
  const src = join(PACKAGE_DIR, "src");
  for (const file of readdirSync(src, { recursive: true, encoding: "utf8" })) {
    if (statSync(join(src, file)).mtimeMs > built)
      throw new Error(`dist is older than src/${file}: run \`pnpm build\``);
  }
}

/** Runs an ES module snippet in a fresh Node process from the package folder. */
export function runNode(
  code: string,
  options: { heapMb?: number } = {},
): { status: number | null; stdout: string; stderr: string } {
  const args = options.heapMb ? [`--max-old-space-size=${options.heapMb}`] : [];
  const result = spawnSync(process.execPath, [...args, "--input-type=module", "-e", code], {
    cwd: PACKAGE_DIR,
    // pnpm's bin shims export NODE_PATH=…/.pnpm/node_modules, where every workspace package is
    // hoisted; a real application has no such path.
    env: { ...process.env, NODE_PATH: "" },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
